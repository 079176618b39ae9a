"""The authors' per-batch protocol (main.py::test_attack), scored on the benign slots.

Per test batch ``X`` of a stream:

1. ``theta_t`` = the clean adapter's state;
2. the clean adapter adapts on ``X`` (the reference trajectory, which continues);
3. for each attack: the surrogate (the victim's model at ``theta_t``) crafts ``X~``; the victim at
   ``theta_t`` runs its TTA forward on ``X~``; its benign-slot error counts (and the malicious-slot error).

Non-continual (the default, ``DIA.CONTINUAL = False``): the victim restarts from ``theta_t`` every batch,
so its own update on ``X~`` never reaches a scored prediction and is skipped (``Adapter.predict`` is the
same forward that ``Adapter.step`` returns; a test checks they are equal). Continual: each attack drives
its own victim, which adapts on the poisoned batches and is attacked at its own current state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from paperkit.validation import check_bool, check_choice, check_instance, check_seed
from torch import nn

from tta_attack.attacks import ATTACKS, AttackConfig, craft, malicious_count
from tta_attack.tta import TTA_METHODS, Adapter, TTAConfig

__all__ = ["StreamResult", "run_stream"]


@dataclass(frozen=True)
class StreamResult:
    """Per attack, ``(n_batches,)`` error rates: ``benign`` (the first B - m slots), ``malicious`` (the
    last m); ``clean_benign``: the clean adapter's error on the same benign slots."""

    attacks: tuple[str, ...]
    benign: dict[str, np.ndarray]
    malicious: dict[str, np.ndarray]
    clean_benign: np.ndarray

    def mean_benign(self, attack: str) -> float:
        return float(self.benign[attack].mean())


def _err(logits: torch.Tensor, y: torch.Tensor) -> float:
    return float((logits.argmax(1) != y).float().mean())


def _configs(
    config: AttackConfig | Mapping[str, AttackConfig] | None, attacks: tuple[str, ...]
) -> dict[str, AttackConfig]:
    if config is None or isinstance(config, AttackConfig):
        one = AttackConfig() if config is None else config
        return dict.fromkeys(attacks, one)
    cfgs: dict[str, AttackConfig] = {
        a: check_instance(config.get(a), f"attack_config[{a!r}]", AttackConfig)  # type: ignore[misc]
        for a in attacks
    }
    if len({c.malicious for c in cfgs.values()}) != 1:
        raise ValueError("attack_config: every attack must poison the same malicious share")
    return cfgs


def run_stream(
    method: str,
    source: nn.Module,
    stream: list[tuple[torch.Tensor, torch.Tensor]],
    attacks: tuple[str, ...] = ATTACKS,
    *,
    attack_config: AttackConfig | Mapping[str, AttackConfig] | None = None,
    tta_config: TTAConfig | None = None,
    fisher: list[torch.Tensor] | None = None,
    continual: bool = False,
    seed: int = 0,
) -> StreamResult:
    """Run TTA ``method`` on ``stream`` (``[(x (B, C, H, W), y (B,))]``) under each attack (module docstring).

    Labels are read for scoring and by ``"dia"`` only. FCA's centroids run over the stream per attack.
    ``attack_config``: one budget for every attack, or one per attack (the tuned PGD steps); the
    malicious share must be the same for all.
    """
    method = check_choice(method, "method", TTA_METHODS)
    for a in attacks:
        check_choice(a, "attack", ATTACKS)
    cfgs = _configs(attack_config, attacks)
    cfg = next(iter(cfgs.values()))
    continual, seed = check_bool(continual, "continual"), check_seed(seed)
    clean = Adapter(method, source, tta_config, fisher)
    victims = {a: Adapter(method, source, tta_config, fisher) for a in attacks} if continual else {}
    gen = torch.Generator(device=stream[0][0].device).manual_seed(seed)
    ben: dict[str, list[float]] = {a: [] for a in attacks}
    mal: dict[str, list[float]] = {a: [] for a in attacks}
    cents: dict[str, torch.Tensor | None] = dict.fromkeys(attacks)
    clean_err = []
    for x, y in stream:
        nb = len(x) - malicious_count(len(x), cfg.malicious)
        theta = clean.state()
        clean_err.append(_err(clean.step(x)[:nb], y[:nb]))
        after = clean.state()
        for a in attacks:
            victim = victims[a] if continual else clean
            if not continual:
                victim.load(theta)
            out = craft(
                a,
                victim.model,
                x,
                cfgs[a],
                labels=y if a == "dia" else None,
                centroids=cents[a],
                generator=gen,
            )
            cents[a] = out.centroids
            logits = victim.step(out.x) if continual else victim.predict(out.x)
            ben[a].append(_err(logits[:nb], y[:nb]))
            mal[a].append(_err(logits[nb:], y[nb:]))
        clean.load(after)
    return StreamResult(
        tuple(attacks),
        {a: np.asarray(v) for a, v in ben.items()},
        {a: np.asarray(v) for a, v in mal.items()},
        np.asarray(clean_err),
    )
