"""Running the experiment: every run of a Config into typed records, and the closed-form oracles.

Every (block, model, seed) run trains a fresh model on the block's training lengths (answer-only loss) and
evaluates it on fresh sequences of the evaluation lengths (length generalisation), in float32.
``run_cases(config, seed=..., device=...)`` returns :class:`Records`; ``run(config, seed=..., device=...)``
wraps them, with the claims and the tables, into a paperkit Report (``metrics`` is their JSON form).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit import Report, torch_threads, track
from paperkit.validation import check_seed

from lrnn_state_tracking.models import LRNNLM
from lrnn_state_tracking.oracles import parity_deltanet_oracle, parity_diag_oracle
from lrnn_state_tracking.reproduce.claims import claims, report_only
from lrnn_state_tracking.reproduce.config import MODELS, Block, Config, RunCase
from lrnn_state_tracking.reproduce.tables import tables
from lrnn_state_tracking.tasks import get_task
from lrnn_state_tracking.training import accuracy_by_length, check_device, scaled_accuracy, train


@dataclass(frozen=True, eq=False)
class RunRecord:
    """One trained model: accuracy on the evaluation lengths and on the training lengths, the scaled
    evaluation accuracy, the evaluation accuracy per length bin (centres, values), the loss per step and
    the training loop's wall-clock seconds (tables only)."""

    case: RunCase
    acc_eval: float
    acc_train_lengths: float
    scaled_acc_eval: float
    bin_centres: np.ndarray
    bin_acc: np.ndarray
    loss: np.ndarray
    train_seconds: float


@dataclass(frozen=True)
class OracleRecord:
    """Accuracy of the closed-form parity constructions at every position, and the diagonal's at the last."""

    diag: float
    deltanet: float
    diag_final: float


@dataclass(frozen=True, eq=False)
class Records:
    """Every run of one Config keyed by its RunCase (in run order), the base seed and the oracles."""

    seed: int
    runs: Mapping[RunCase, RunRecord]
    oracle: OracleRecord

    def block(self, key: str) -> dict[str, list[RunRecord]]:
        """Block ``key``'s records: model name -> one record a seed, in seed order (empty if not run)."""
        out: dict[str, list[RunRecord]] = {}
        for case, record in self.runs.items():
            if case.block.key == key:
                out.setdefault(case.model, []).append(record)
        return out

    def accs(self, key: str, model: str) -> list[float]:
        """Evaluation accuracy of ``model`` in block ``key``, one a seed."""
        return [r.acc_eval for r in self.block(key).get(model, [])]


def build_model(config: Config, exp: Block, name: str, seed: int, device: str) -> LRNNLM:
    """A fresh model ``name`` for ``exp``'s task, initialised from ``seed``."""
    layer, eig = MODELS[name]
    task = get_task(exp.task)
    torch.manual_seed(seed)
    model = LRNNLM(
        task.vocab_size,
        task.n_classes,
        exp.d_model,
        exp.n_layers,
        layer,
        eig,
        d_state=exp.d_state or config.d_state,
        conv=config.conv,
        n_heads=4 if exp.d_model % 4 == 0 else 1,
        mlp=layer == "transformer",  # the LRNN stacks are mixer-only, as the official Mamba LM
        context_length=max(256, config.eval_len[1]),
    )
    return model.to(device)


def run_one(config: Config, exp: Block, name: str, seed: int, device: str = "cpu") -> RunRecord:
    """Train and evaluate one model ``name`` of block ``exp`` on ``seed``."""
    task = get_task(exp.task)
    model = build_model(config, exp, name, seed, device)
    lo, hi = exp.train_len or config.train_len
    hist = train(
        model, task, exp.steps, batch=config.batch, min_len=lo, max_len=hi, lr=exp.lr, warmup=config.warmup,
        weight_decay=exp.weight_decay, seed=seed, device=device, mode=exp.train_mode,
    )  # fmt: skip
    ev = accuracy_by_length(model, task, *config.eval_len, config.n_eval, seed=10_000 + seed, device=device)
    ev_in = accuracy_by_length(
        model, task, *config.train_len, max(64, config.n_eval // 4), seed=20_000 + seed, device=device
    )
    centres, binned = ev.binned(np.linspace(config.eval_len[0], config.eval_len[1] + 1, 9))
    return RunRecord(
        case=RunCase(exp, name, seed),
        acc_eval=ev.accuracy,
        acc_train_lengths=ev_in.accuracy,
        scaled_acc_eval=scaled_accuracy(ev.accuracy, task.n_classes),
        bin_centres=centres,
        bin_acc=binned,
        loss=hist.loss,
        train_seconds=hist.seconds,
    )


def oracle_accuracy(config: Config, seed: int, device: str) -> OracleRecord:
    """Accuracy of both parity oracles at every position of random strings of ``oracle_len`` bits."""
    gen = torch.Generator().manual_seed(seed)
    bits = torch.randint(0, 2, (config.oracle_batch, config.oracle_len), generator=gen).to(device)
    truth = bits.cumsum(1) % 2
    diag_hit = parity_diag_oracle(bits) == truth
    return OracleRecord(
        diag=float(diag_hit.double().mean()),
        deltanet=float((parity_deltanet_oracle(bits, seed=seed) == truth).double().mean()),
        diag_final=float(diag_hit[:, -1].double().mean()),
    )


def run_cases(config: Config, *, seed: int = 0, device: str = "cpu") -> Records:
    """Every run of ``config`` on seeds ``seed, seed + 1, ...`` and the oracles, on one torch thread;
    ``device`` is checked first (:class:`paperkit.DeviceError` when it is not available)."""
    check_seed(seed)
    device = check_device(device)
    with torch_threads(1):
        runs = {
            case: run_one(config, case.block, case.model, case.seed, device)
            for case in track(config.cases(seed), desc="lrnn-state-tracking reproduce")
        }
        oracle = oracle_accuracy(config, seed, device)
    return Records(seed=seed, runs=runs, oracle=oracle)


def run_metrics(records: Records) -> dict[str, Any]:
    """Per block and model: accuracies per seed, per-length-bin accuracy, a thinned loss curve."""
    out: dict[str, Any] = {}
    for case, first in records.runs.items():
        key = str(case)
        if key in out:
            continue
        runs = records.block(case.block.key)[case.model]
        out[key] = {
            "acc_eval_per_seed": [r.acc_eval for r in runs],
            "acc_train_lengths_per_seed": [r.acc_train_lengths for r in runs],
            "bin_centres": first.bin_centres,
            "bin_acc_per_seed": [r.bin_acc for r in runs],
            "loss_per_seed": [r.loss[:: max(1, len(r.loss) // 200)] for r in runs],
        }  # wall-clock times go to the table only, so that the same seed gives the same metrics
    return out


def run(config: Config, *, seed: int = 0, device: str = "cpu") -> Report:
    """Every block of ``config`` on seeds ``seed, seed + 1, ...``, as a paperkit Report; ``device`` is
    checked first (:class:`paperkit.DeviceError` when it is not available)."""
    records = run_cases(config, seed=seed, device=device)
    extra, notes = report_only(records, config)
    return Report(
        metrics={
            "oracle": vars(records.oracle),
            "runs": run_metrics(records),
            "blocks": {e.key: e.task for e in config.experiments},
            "report_only": extra,
        },
        claims=claims(records, config),
        tables=tables(records, config, extra),
        notes=notes,
    )
