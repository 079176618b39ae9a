"""Scales of the reproduction and the frozen claim margins (RESULTS.md, "Calibration")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from paperkit import Scales, ScaleTable

__all__ = ["Config", "Margins"]


@dataclass(frozen=True)
class Margins:
    """One line per margin: its source and calibration."""

    exact: float = 0.0  # spec claim 1: bit for bit (max |diff| = 0), not a tolerance
    gate_accuracy: float = 0.9  # ours: the trained copy model must solve the task before the heat-map claim
    peak_effect: float = 0.5  # ours: patched/clean logit-difference recovery at the heat-map's peak
    transfer_factor: float = 1.1  # spec claim 3: response <= 1.1 x (base64 bytes of saves) + 4 KiB
    transfer_slack: int = 4096  # spec claim 3
    sweep_ratio: float = 1.5  # spec claim 4: batched sweep CPU time <= 1.5 x hand-written hooks
    fixed_overhead_ms: float = 5.0  # spec claim 4: one small trace <= 5 ms above a plain forward
    min_forward_ms: float = 5.0  # issue: timing claims on a model whose forward takes >= 5 ms


@dataclass(frozen=True)
class Config(Scales):
    """``seeds``: model/data seeds of the exactness checks (paired: every method sees the same model and
    pairs). ``train_steps``: copy-task training of the heat-map model (0: random init, no heat-map claim).
    ``sweep_layers`` x 16 positions x ``sweep_pairs`` pairs: the patching sweep (one trace of two invokes per
    (layer, position)). ``timing_batch``: rows of the fixed-overhead forward (>= 5 ms)."""

    seeds: int = 3
    exact_pairs: int = 8
    train_steps: int = 300  # spec: 300 steps of the copy task
    sweep_layers: int = 4
    sweep_pairs: int = 32
    sweep_reps: int = 5
    fixed_reps: int = 30  # spec: medians of 30 runs
    timing_batch: int = 64
    remote_clients: int = 4
    remote_jobs: int = 8
    payload_mb: tuple[float, ...] = (0.1, 1.0, 10.0, 100.0)  # spec figure (c): latency vs saved payload
    client_counts: tuple[int, ...] = (1, 2, 4)  # spec figure (d): jobs/s vs concurrent clients
    timing: bool = True  # False at smoke scale: CPU times differ run to run, and smoke must repeat exactly
    margins: Margins = Margins()

    SCALES: ClassVar[ScaleTable] = {
        "quick": {"train_steps": 0, "sweep_layers": 1, "sweep_pairs": 8, "sweep_reps": 3, "remote_clients": 2,
                  "remote_jobs": 4, "payload_mb": (0.1, 1.0, 10.0), "client_counts": (1, 2)},
        "smoke": {"seeds": 1, "exact_pairs": 2, "train_steps": 0, "sweep_layers": 1, "sweep_pairs": 2,
                  "sweep_reps": 1, "fixed_reps": 3, "timing_batch": 8, "remote_clients": 1, "remote_jobs": 1,
                  "payload_mb": (), "client_counts": (), "timing": False},
    }  # fmt: skip
