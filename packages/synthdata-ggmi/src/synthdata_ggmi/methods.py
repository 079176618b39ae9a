"""The post-trained model and its baselines in the Gaussian-mixture simulation, behind one registry.

Every method builds world ``seed`` of the simulation (the same target D and anchor data for every
method: paired), trains its density model, and returns it with KL(model || D) by exact-density MC.

- ``anchor``: W', the K-component EM fit on the anchor data (the reference of the KL gap and of GGMI).
- ``synthetic``: W, the (K + J + L)-component fit on S_gen from M (K fitted, J copied, L spurious).
- ``synthetic-no-gain``: the same, but M adds no information (the J components are not copied).
- ``synthetic-noisy``: S_gen = M(p) + eps, eps ~ N(0, I) (uncurated generation noise).
- ``synthetic-curated``: the noisy S_gen, drawn 1/0.8 times larger and its least likely 20% under M dropped.

``call(*, K, J, L, N_k, d, n_samples, n_eval, seed) -> DensityFit``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from paperkit import check_choice, check_instance, check_int, check_seed

from synthdata_ggmi.divergence import mc_kl
from synthdata_ggmi.gmm import GMMSpec
from synthdata_ggmi.simulation import Protocol, draw_world, fit_model

__all__ = ["METHODS", "DensityFit", "MethodInfo", "run_method"]


@dataclass(frozen=True)
class DensityFit:
    """A trained density model, the target it is scored against, and KL(model || target) in nats."""

    model: GMMSpec
    target: GMMSpec
    kl: float
    kl_se: float

    def __post_init__(self) -> None:
        check_instance(self.model, "model", GMMSpec)
        check_instance(self.target, "target", GMMSpec)


@dataclass(frozen=True)
class MethodInfo:
    """A registry entry: whether it trains on synthetic data, whether M adds information, the call."""

    synthetic: bool
    information_gain: bool
    call: Callable[..., DensityFit]


def _method(
    *, synthetic: bool, copy_gain: bool = True, noise: float = 0.0, curate: float = 0.0
) -> Callable[..., DensityFit]:
    def call(
        *,
        K: int,
        J: int,
        L: int,
        N_k: int = 50,
        d: int = 2,
        n_samples: int = 200,
        n_eval: int = 2000,
        seed: int,
    ) -> DensityFit:
        proto = Protocol(
            K=K, J=J, L=L, N_k=N_k, d=d, n_samples=n_samples, noise=noise, curate=curate, copy_gain=copy_gain
        )  # fmt: skip
        seed = check_seed(seed)
        world = draw_world(proto, seed=seed, repeat=0)
        model = fit_model(world, proto, synthetic=synthetic, seed=seed, repeat=0)
        est = mc_kl(model, world.truth, check_int(n_eval, "n_eval", low=2), np.random.default_rng([seed, 9]))
        return DensityFit(model, world.truth, est.value, est.se)

    return call


METHODS: dict[str, MethodInfo] = {
    "anchor": MethodInfo(False, False, _method(synthetic=False)),
    "synthetic": MethodInfo(True, True, _method(synthetic=True)),
    "synthetic-no-gain": MethodInfo(True, False, _method(synthetic=True, copy_gain=False)),
    "synthetic-noisy": MethodInfo(True, True, _method(synthetic=True, noise=1.0)),
    "synthetic-curated": MethodInfo(True, True, _method(synthetic=True, noise=1.0, curate=0.2)),
}


def run_method(name: str, **kw: object) -> DensityFit:
    """Run the registry method ``name`` (one of :data:`METHODS`)."""
    return METHODS[check_choice(name, "name", tuple(METHODS))].call(**kw)
