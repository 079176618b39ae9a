"""DP optimisers: DP-SGD / DP-Adam (``DPOptimizer``) and DiSK, the simplified-Kalman-filter wrapper.

Both wrap any ``torch.optim.Optimizer`` over a model's trainable parameters. A step takes a *closure*
that returns per-sample gradients ``{name: (B, *shape)}`` at the parameters' current values (see
:func:`disk_dp.clipping.per_sample_grads`; :func:`make_closure` builds one for a batch); the optimiser
may evaluate it at shifted parameters (DiSK), always restoring them bit-for-bit afterwards.

DP step (Abadi et al. 2016; Opacus' normalisation): for the Poisson batch ``B_t`` with expected size
``B = q n``, ``g~ = (1/B) (sum_i clip_C(u_i) + N(0, sigma^2 C^2 I))``, then ``Opt(x_t, g~)``.

DiSK step (official ReadMe, research/disk_optimizer in pytorch/opacus), ``c = (1 - kappa)/(kappa gamma)``:

1. ``u_i = c grad f(x_t + gamma d_t; xi_i) + (1 - c) grad f(x_t; xi_i)``   (finite-difference prediction)
2. ``g_{t+1/2} = (1/B) (sum_i clip_C(u_i) + N(0, sigma^2 C^2 I))``          (same privacy as DP-SGD)
3. ``g_t = (1 - kappa) g_{t-1} + kappa g_{t+1/2}``; ``g_0 = g_{1/2}``, ``d_0 = 0`` (Kalman update)
4. ``x_{t+1} = Opt(x_t, g_t)``;  ``d_{t+1} = x_{t+1} - x_t``.

``gamma`` within 1e-3 of ``(1 - kappa)/kappa`` gives ``c = 1``: one gradient at ``x_t + gamma d_t`` a step,
as in the official code's ``_compute_one_closure``; ``c = 0`` (``kappa = 1`` or the EMA ablation) needs only
``grad f(x_t)``. Otherwise two evaluations a step.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import NotRequired, TypedDict, Unpack

import torch
from paperkit.validation import check_number, check_probability
from torch import nn

from disk_dp.clipping import LossFn, check_dp_compatible, per_sample_grads, trainable_parameters

Closure = Callable[[], dict[str, torch.Tensor]]


def make_closure(
    model: nn.Module, loss_fn: LossFn, inputs: torch.Tensor, targets: torch.Tensor, *, summed: bool = False
) -> Closure:
    """A closure returning the per-sample gradients of ``(inputs, targets)`` at the model's current values
    (``summed``: see :func:`~disk_dp.clipping.per_sample_grads`)."""
    return lambda: per_sample_grads(model, loss_fn, inputs, targets, summed=summed)


def _positive(name: str, value: object, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    return check_number(value, name, low=0, low_open=not allow_zero, finite=not allow_inf)


class DPOptimizer:
    """DP-SGD / DP-Adam: clip per-sample gradients, add Gaussian noise to the sum, normalise, step ``base``.

    Args:
        model: the ``nn.Module`` trained (checked by :func:`~disk_dp.clipping.check_dp_compatible`).
        base: a ``torch.optim.Optimizer`` over exactly the model's trainable parameters.
        noise_multiplier: sigma >= 0 (noise std = sigma * C on the sum); 0 is allowed for debugging
            (eps = inf).
        max_grad_norm: clipping norm C > 0 (``inf``: no clipping, only with sigma = 0).
        expected_batch_size: B = q n > 0, the normaliser (not the realised Poisson batch size).
        generator: ``torch.Generator`` on the parameters' device for the noise; default a new one seeded
            with ``seed``.
        seed: seed of the default generator.
        nonfinite: what a per-sample gradient with a NaN or inf entry does: ``"raise"`` (default, a
            ``ValueError``) or ``"drop"`` (the example is left out of the step; ``nonfinite_dropped``
            counts them).
    """

    def __init__(
        self,
        model: nn.Module,
        base: torch.optim.Optimizer,
        *,
        noise_multiplier: float,
        max_grad_norm: float,
        expected_batch_size: float,
        generator: torch.Generator | None = None,
        seed: int = 0,
        nonfinite: str = "raise",
    ) -> None:
        check_dp_compatible(model)
        if nonfinite not in ("raise", "drop"):
            raise ValueError(f"nonfinite must be 'raise' or 'drop', got {nonfinite!r}")
        self.nonfinite = nonfinite
        self.nonfinite_dropped = 0
        if not isinstance(base, torch.optim.Optimizer):
            raise TypeError(f"base must be a torch.optim.Optimizer, got {type(base).__name__}")
        self.noise_multiplier = _positive("noise_multiplier", noise_multiplier, allow_zero=True)
        self.max_grad_norm = _positive("max_grad_norm", max_grad_norm, allow_inf=True)
        if math.isinf(self.max_grad_norm) and self.noise_multiplier > 0:
            raise ValueError("max_grad_norm = inf is only allowed with noise_multiplier = 0 (no privacy)")
        self.expected_batch_size = _positive("expected_batch_size", expected_batch_size)
        self.model, self.base = model, base
        self.params = trainable_parameters(model)
        base_ids = {id(p) for group in base.param_groups for p in group["params"]}
        if base_ids != {id(p) for p in self.params.values()}:
            raise ValueError("base optimizer must hold exactly the model's trainable parameters")
        first = next(iter(self.params.values()))
        if generator is None:
            generator = torch.Generator(device=first.device).manual_seed(seed)
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
        if generator.device.type != first.device.type:
            raise ValueError(f"generator is on {generator.device} but the parameters are on {first.device}")
        self.generator = generator
        self.steps = 0

    @property
    def effective_noise_multiplier(self) -> float:
        """The sigma the privacy accountant must see (DiSK's official scaling may raise it)."""
        return self.noise_multiplier

    def privatize(self, per_sample: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``(1/B) (sum_i clip_C(u_i) + N(0, sigma^2 C^2 I))`` for per-sample vectors ``{name: (b, ...)}``.

        The vectors are flattened into one ``(b, P)`` matrix, so the norms, the clipped sum (a ``(b,) @
        (b, P)`` product) and the noise (one ``(P,)`` draw) are a handful of calls whatever the number of
        parameter tensors. An example whose vector has a NaN or inf entry is refused (``ValueError``) or,
        with ``nonfinite="drop"``, left out of the sum and counted in ``nonfinite_dropped``: clipping cannot
        bound a NaN, and the privacy guarantee rests on every summand having norm <= C.
        """
        names = list(per_sample)
        flat = torch.cat([per_sample[n].flatten(1) for n in names], 1)
        norms = torch.linalg.vector_norm(flat, dim=1)
        finite = torch.isfinite(norms)  # a NaN or inf entry makes the norm NaN or inf
        n_bad = int(flat.shape[0] - finite.sum().item())
        if n_bad:
            if self.nonfinite == "raise":
                raise ValueError(
                    f"{n_bad} of {flat.shape[0]} per-sample gradients have NaN or inf entries; clipping "
                    "cannot bound them (pass nonfinite='drop' to leave such examples out and count them)"
                )
            flat, norms = flat[finite], norms[finite]
            self.nonfinite_dropped += n_bad
        factor = (self.max_grad_norm / norms.clamp_min(torch.finfo(norms.dtype).tiny)).clamp(max=1.0)
        total = factor @ flat
        sigma = self.effective_noise_multiplier
        if sigma > 0:
            noise = torch.randn(total.shape, generator=self.generator, device=total.device, dtype=total.dtype)
            total = total + (sigma * self.max_grad_norm) * noise
        total = total / self.expected_batch_size
        out, start = {}, 0
        for name in names:
            shape = per_sample[name].shape[1:]
            size = shape.numel()
            out[name] = total[start : start + size].view(shape)
            start += size
        return out

    def _apply(self, direction: dict[str, torch.Tensor]) -> None:
        for name, p in self.params.items():
            p.grad = direction[name].detach().clone()
        self.base.step()
        self.base.zero_grad(set_to_none=True)

    def step(self, closure: Closure) -> None:
        """One DP step: privatise the closure's per-sample gradients at x_t, then step the base optimiser."""
        with torch.no_grad():
            noisy = self.privatize(closure())
        self._apply(noisy)
        self.steps += 1


class DiSK(DPOptimizer):
    """DiSK: a DP optimiser whose privatised gradient is denoised by a simplified Kalman filter.

    Args (besides :class:`DPOptimizer`'s):
        kappa: Kalman gain in (0, 1] (official default 0.7); 1 gives the base DP optimiser.
        gamma: finite-difference step > 0 (official default 0.5 gives c = 0.857, two gradients a step);
            gamma = (1 - kappa)/kappa (within 1e-3) gives c = 1 and one gradient a step.
        finite_difference: False drops the prediction term (c = 0): the plain EMA-momentum ablation
            ``g_t = (1 - kappa) g_{t-1} + kappa g~_t``.
        legacy_weight: True puts weight 1 - kappa on the new observation, as the current official
            ``KFoptimizer.py`` (after commit f23e5c47) does; False (default) is the ReadMe's form.
        official_noise_scaling: True divides sigma by sqrt(c^2 + (1 - c)^2) in the two-gradient path as the
            official code does (more noise; the accountant then sees that sigma); False (default) does not.

    State: ``g_prev`` (the filtered gradient) and ``d`` (the last step), two copies of the parameters.
    """

    def __init__(
        self,
        model: nn.Module,
        base: torch.optim.Optimizer,
        *,
        noise_multiplier: float,
        max_grad_norm: float,
        expected_batch_size: float,
        kappa: float = 0.7,  # official ReadMe / KF_PrivacyEngine default
        gamma: float = 0.5,  # official ReadMe / KF_PrivacyEngine default
        finite_difference: bool = True,
        legacy_weight: bool = False,
        official_noise_scaling: bool = False,
        generator: torch.Generator | None = None,
        seed: int = 0,
        nonfinite: str = "raise",
    ) -> None:
        kappa = check_probability(kappa, "kappa (the Kalman gain)", allow_zero=False)
        gamma = _positive("gamma", gamma)
        super().__init__(
            model,
            base,
            noise_multiplier=noise_multiplier,
            max_grad_norm=max_grad_norm,
            expected_batch_size=expected_batch_size,
            generator=generator,
            seed=seed,
            nonfinite=nonfinite,
        )
        self.kappa = float(kappa)
        if not finite_difference:
            self.c = 0.0
        elif abs(gamma - (1.0 - kappa) / kappa) < 1e-3:  # the official switch to the one-gradient path
            gamma = (1.0 - kappa) / kappa
            self.c = 1.0
        else:
            self.c = (1.0 - kappa) / (kappa * gamma)
        self.gamma = gamma
        if self.c > 5.0:
            warnings.warn(
                f"c = (1 - kappa)/(kappa gamma) = {self.c:.3g} > 5 amplifies the gradient difference; "
                "consider a larger gamma",
                stacklevel=2,
            )
        self.legacy_weight = bool(legacy_weight)
        self.official_noise_scaling = bool(official_noise_scaling)
        self.g_prev: dict[str, torch.Tensor] | None = None
        self.d: dict[str, torch.Tensor] | None = None

    @property
    def gradients_per_step(self) -> int:
        return 1 if self.c in (0.0, 1.0) else 2

    @property
    def effective_noise_multiplier(self) -> float:
        if self.official_noise_scaling and self.gradients_per_step == 2:
            return self.noise_multiplier / math.sqrt(self.c**2 + (1.0 - self.c) ** 2)
        return self.noise_multiplier

    def _at_lookahead(self, closure: Closure) -> dict[str, torch.Tensor]:
        """The closure evaluated at x_t + gamma d_t; parameters restored exactly (from a copy)."""
        assert self.d is not None
        saved = {n: p.detach().clone() for n, p in self.params.items()}
        with torch.no_grad():
            for n, p in self.params.items():
                p.add_(self.d[n], alpha=self.gamma)
        try:
            return closure()
        finally:
            with torch.no_grad():
                for n, p in self.params.items():
                    p.copy_(saved[n])

    def combined_per_sample(self, closure: Closure) -> dict[str, torch.Tensor]:
        """``u_i = c grad f(x_t + gamma d_t; xi_i) + (1 - c) grad f(x_t; xi_i)`` for the closure's batch.

        On the first step (no d_t yet) and for c = 0 only grad f(x_t) is evaluated.
        """
        if self.d is None or self.c == 0.0:
            return closure()
        if self.c == 1.0:
            return self._at_lookahead(closure)
        here = closure()
        ahead = self._at_lookahead(closure)
        return {n: self.c * ahead[n] + (1.0 - self.c) * here[n] for n in here}

    def filter(self, observation: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Kalman update ``g_t = (1 - kappa) g_{t-1} + kappa g_{t+1/2}`` (``g_0 = g_{1/2}``)."""
        if self.g_prev is None:
            return {n: o.clone() for n, o in observation.items()}
        w_new = 1.0 - self.kappa if self.legacy_weight else self.kappa
        return {n: self.g_prev[n] * (1.0 - w_new) + observation[n] * w_new for n in observation}

    def step(self, closure: Closure) -> None:
        """One DiSK step (steps 1-5 of the module docstring)."""
        with torch.no_grad():
            u = self.combined_per_sample(closure)
            g = self.filter(self.privatize(u))
            before = {n: p.detach().clone() for n, p in self.params.items()}
        self._apply(g)
        with torch.no_grad():
            self.g_prev = g
            self.d = {n: p.detach() - before[n] for n, p in self.params.items()}
        self.steps += 1


class DPArgs(TypedDict):
    """The :class:`DPOptimizer` keyword arguments every ``make_*`` factory forwards."""

    noise_multiplier: float
    max_grad_norm: float
    expected_batch_size: float
    generator: NotRequired[torch.Generator | None]
    seed: NotRequired[int]
    nonfinite: NotRequired[str]


def _base(
    cls: type[torch.optim.SGD | torch.optim.Adam], model: nn.Module, lr: float
) -> torch.optim.Optimizer:
    """``cls`` (SGD or Adam, default hyper-parameters) over the model's trainable parameters at ``lr``."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    return cls(list(trainable_parameters(model).values()), lr=_positive("lr", lr))


def make_dp_sgd(model: nn.Module, lr: float, **dp: Unpack[DPArgs]) -> DPOptimizer:
    """DP-SGD: ``x <- x - lr g~``."""
    return DPOptimizer(model, _base(torch.optim.SGD, model, lr), **dp)


def make_dp_adam(model: nn.Module, lr: float, **dp: Unpack[DPArgs]) -> DPOptimizer:
    """DP-Adam: Adam's moments computed from the privatised gradient (betas 0.9, 0.999)."""
    return DPOptimizer(model, _base(torch.optim.Adam, model, lr), **dp)


def make_disk_sgd(
    model: nn.Module, lr: float, *, kappa: float = 0.7, gamma: float = 0.5, **dp: Unpack[DPArgs]
) -> DiSK:
    """DiSK over SGD: ``x <- x - lr g_t`` with ``g_t`` the Kalman-filtered privatised gradient."""
    return DiSK(model, _base(torch.optim.SGD, model, lr), kappa=kappa, gamma=gamma, **dp)


def make_disk_adam(
    model: nn.Module, lr: float, *, kappa: float = 0.7, gamma: float = 0.5, **dp: Unpack[DPArgs]
) -> DiSK:
    """DiSK over Adam: Adam's moments computed from the filtered gradient ``g_t``."""
    return DiSK(model, _base(torch.optim.Adam, model, lr), kappa=kappa, gamma=gamma, **dp)


def make_dp_sgd_ema(model: nn.Module, lr: float, *, kappa: float = 0.7, **dp: Unpack[DPArgs]) -> DiSK:
    """The ablation DP-SGD + EMA momentum ``g_t = (1 - kappa) g_{t-1} + kappa g~_t`` (DiSK with c = 0)."""
    base = _base(torch.optim.SGD, model, lr)
    return DiSK(model, base, kappa=kappa, gamma=1.0, finite_difference=False, **dp)


__all__ = [
    "DPOptimizer",
    "DiSK",
    "make_closure",
    "make_disk_adam",
    "make_disk_sgd",
    "make_dp_adam",
    "make_dp_sgd",
    "make_dp_sgd_ema",
]
