"""``run(config, *, seed, device) -> Report``: tune the PGD step on a dev split, then paired seeds.

Seed ``s`` draws the data split, the source models' initialisation and training order, the corruption
noise and the stream order; every attack and victim under seed ``s`` sees the same batches (paired).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit import Report, check_seed, torch_threads, track, tune
from paperkit.vision import evaluate

from tta_attack.attacks import ATTACKS, AttackConfig, craft, malicious_count
from tta_attack.data import corrupted_stream, digits_split
from tta_attack.evaluate import run_stream
from tta_attack.models import source_model, with_median_bn
from tta_attack.reproduce.claims import claims
from tta_attack.reproduce.config import Config
from tta_attack.reproduce.tables import tables
from tta_attack.tta import fisher_diagonal

__all__ = ["SeedRecord", "run", "run_seed", "tune_alpha"]

PGD_ATTACKS = ("dia", "dia_pseudo", "fca")
DEFENCE_ATTACKS = ("none", "fca", "dia")
DEFENCES = ("medbn", "robust")
FISHER_IMAGES = 500  # EATA's Fisher from 500 clean training images (the official code: 2000 ID samples)


@dataclass(frozen=True)
class SeedRecord:
    """One seed's numbers. ``benign[(victim, corruption, attack)]``: mean benign-slot error over the
    stream; ``malicious``: the same on the malicious slots; ``defended[(defence, victim, corruption,
    attack)]``; ``eval_identical``: every attack left eval-mode-BN benign logits bit-identical."""

    seed: int
    source_acc: float
    robust_acc: float
    benign: dict[tuple[str, str, str], float]
    malicious: dict[tuple[str, str, str], float]
    defended: dict[tuple[str, str, str, str], float]
    eval_identical: bool


@dataclass(frozen=True)
class _Data:
    split: Any
    src: torch.nn.Module
    x_dev: torch.Tensor
    y_dev: torch.Tensor
    x_eval: torch.Tensor
    y_eval: torch.Tensor


def _data(config: Config, seed: int, device: str) -> _Data:
    split = digits_split(seed=seed, test_fraction=config.test_fraction, device=device)
    src = source_model(
        split.x_train, split.y_train, channels=config.channels, epochs=config.epochs, seed=seed, device=device
    )
    n_dev = config.dev_batches * config.batch
    return _Data(
        split, src, split.x_test[:n_dev], split.y_test[:n_dev], split.x_test[n_dev:], split.y_test[n_dev:]
    )


def _fisher(victim: str, src: torch.nn.Module, data: _Data) -> list[torch.Tensor] | None:
    return fisher_diagonal(src, data.split.x_train[:FISHER_IMAGES]) if victim == "eata" else None


def tune_alpha(config: Config, seed: int, device: str) -> dict[str, float]:
    """Each PGD attack's step (as a fraction of eps) from ``config.alpha_grid``: the cell with the highest
    mean benign error on the dev batches (Tent victim, every corruption); same grid and steps for all."""
    data = _data(config, seed, device)
    streams = [
        corrupted_stream(data.x_dev, data.y_dev, c, severity=config.severity, batch=config.batch, seed=seed)
        for c in config.corruptions
    ]

    def score(attack: str, setting: Mapping[str, Any]) -> float:
        cfg = config.attack(setting["alpha_ratio"])
        return float(
            np.mean(
                [
                    run_stream("tent", data.src, s, (attack,), attack_config=cfg, seed=seed).mean_benign(
                        attack
                    )
                    for s in streams
                ]
            )
        )

    tuned = tune(score, PGD_ATTACKS, {"alpha_ratio": config.alpha_grid}, fixed={"steps": config.steps})
    return {a: float(t.best["alpha_ratio"]) for a, t in tuned.items()}


def _eval_mode_identical(data: _Data, configs: dict[str, AttackConfig], seed: int) -> bool:
    """Spec check 4: with eval-mode BN (no TTA) no attack changes a benign logit, bit for bit."""
    x, y = data.x_eval[:100], data.y_eval[:100]
    model = data.src.eval()
    clean = model(x).detach()
    gen = torch.Generator(device=x.device).manual_seed(seed)
    nb = len(x) - malicious_count(len(x), configs["fca"].malicious)
    same = True
    for a in ATTACKS:
        out = craft(a, model, x, configs[a], labels=y if a == "dia" else None, generator=gen)
        same &= bool(torch.equal(model(out.x).detach()[:nb], clean[:nb]))
    return same


def run_seed(config: Config, seed: int, alphas: dict[str, float], device: str) -> SeedRecord:
    data = _data(config, seed, device)
    robust = source_model(
        data.split.x_train,
        data.split.y_train,
        channels=config.channels,
        epochs=config.epochs,
        robust=True,
        seed=seed,
        device=device,
    )
    configs = {a: config.attack(alphas.get(a, 0.25)) for a in ATTACKS}
    benign, mal, defended = {}, {}, {}
    for c in config.corruptions:
        stream = corrupted_stream(
            data.x_eval,
            data.y_eval,
            c,
            severity=config.severity,
            batch=config.batch,
            n_batches=config.n_batches,
            seed=seed,
        )
        for v in config.victims:
            res = run_stream(
                v,
                data.src,
                stream,
                ATTACKS,
                attack_config=configs,
                fisher=_fisher(v, data.src, data),
                tta_config=config.tta,
                continual=config.continual,
                seed=seed,
            )
            for a in ATTACKS:
                benign[(v, c, a)], mal[(v, c, a)] = res.mean_benign(a), float(res.malicious[a].mean())
        for v in config.defence_victims:
            for d, model in (("medbn", with_median_bn(data.src)), ("robust", robust)):
                res = run_stream(
                    v,
                    model,
                    stream,
                    DEFENCE_ATTACKS,
                    attack_config=configs,
                    fisher=_fisher(v, model, data),
                    tta_config=config.tta,
                    continual=config.continual,
                    seed=seed,
                )
                for a in DEFENCE_ATTACKS:
                    defended[(d, v, c, a)] = res.mean_benign(a)
    return SeedRecord(
        seed,
        evaluate(data.src, data.split.x_test, data.split.y_test),
        evaluate(robust, data.split.x_test, data.split.y_test),
        benign,
        mal,
        defended,
        _eval_mode_identical(data, configs, seed),
    )


def _key(k: tuple[str, ...]) -> str:
    return "/".join(k)


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    seed = check_seed(seed)
    seeds = tuple(range(seed, seed + config.n_seeds))
    with torch_threads(1):
        alphas = tune_alpha(config, seed, device)
        records = [run_seed(config, s, alphas, device) for s in track(seeds, desc="seeds")]
    cl, summary = claims(records, config)
    metrics: dict[str, Any] = {
        "alpha_ratio": alphas,
        "summary": summary,
        "per_seed": [
            {
                "seed": r.seed,
                "source_acc": r.source_acc,
                "robust_acc": r.robust_acc,
                "eval_identical": r.eval_identical,
                "benign": {_key(k): v for k, v in r.benign.items()},
                "malicious": {_key(k): v for k, v in r.malicious.items()},
                "defended": {_key(k): v for k, v in r.defended.items()},
            }
            for r in records
        ],
    }
    notes = [
        f"Digits 16x16, source BN-CNN channels {list(config.channels)}, {config.epochs} epochs; test part "
        f"{config.test_fraction:g} of the data, {config.dev_batches} dev batch(es) for tuning, then "
        f"{config.n_batches} scored batches of {config.batch} per corruption at severity {config.severity}.",
        f"Attacks: eps = {255 * config.eps:g}/255 (paper 8/255), {config.steps} PGD steps (paper 100), "
        f"malicious share {config.malicious:g}, grey start, step/eps tuned per attack over "
        f"{list(config.alpha_grid)} on the dev batches: {alphas}.",
        f"Per-batch protocol of the official main.py (continual = {config.continual}); seeds {list(seeds)}.",
    ]
    return Report(metrics=metrics, claims=cl, tables=tables(records, config, alphas), notes=notes)
