"""The reproduction: claims are computed from the core, configs validate, plots are labelled."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from lrnn_state_tracking.models import LRNNLM
from lrnn_state_tracking.reproduce import (
    SHORT_PARITY,
    Block,
    Config,
    oracle_accuracy,
    plots,
    run,
    run_one,
)
from lrnn_state_tracking.tasks import get_task
from lrnn_state_tracking.training import accuracy_by_length, train
from paperkit import DeviceError
from shared_testing import assert_identical

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.fixture(scope="module")
def smoke_report():
    return run(Config.smoke(), seed=3)


def test_smoke_claims_are_computed_from_the_core(smoke_report):
    cfg = Config.smoke()
    names = [c.name for c in smoke_report.claims]
    assert names == [
        "parity-diag-pm1-solves",
        "parity-01-fails",
        "parity-deltanet-pm1-solves",
        "oracles-exact-at-10k",
    ]
    exp = cfg.experiments[0]
    # Recompute from single runs of the core, same seed.
    pm1 = run_one(cfg, exp, "diag[-1,1]", 3)
    assert smoke_report.claims[0].observed == pm1.acc_eval
    zero_one = max(run_one(cfg, exp, n, 3).acc_eval for n in ("diag[0,1]", "deltanet[0,1]"))
    assert smoke_report.claims[1].observed == zero_one
    assert smoke_report.claims[2].observed == run_one(cfg, exp, "deltanet[-1,1]", 3).acc_eval
    assert smoke_report.claims[3].observed == 1.0 and smoke_report.claims[3].passed
    assert oracle_accuracy(cfg, 3, "cpu").deltanet == 1.0
    assert len(smoke_report.tables["Accuracy by block and model"]) == 4


def test_same_seed_same_numbers(smoke_report):
    again = run(Config.smoke(), seed=3)
    for key, r in smoke_report.metrics["runs"].items():
        for field in ("acc_eval_per_seed", "loss_per_seed", "bin_acc_per_seed"):
            assert_identical(r[field], again.metrics["runs"][key][field])
    assert [c.observed for c in smoke_report.claims] == [c.observed for c in again.claims]


def test_report_only_claims_are_reported_when_their_tasks_run():
    cfg = dataclasses.replace(
        Config.smoke(),
        experiments=(
            Block("parity", ("diag[-1,1]",), 1, 2, 8, 1, 1e-2),
            Block("count_mod3", ("diag[0,1]", "ghproduct[-1,1]"), 1, 2, 8, 1, 1e-2),
            Block("mod_arith", ("deltanet[0,1]", "deltanet[-1,1]"), 1, 2, 8, 1, 1e-2),
        ),
    )
    rep = run(cfg, seed=0)
    ro = rep.metrics["report_only"]
    assert set(ro) == {"mod3-gh-product-beats-real-diagonal", "mod5-deltanet-pm1-at-least-01"}
    m3 = rep.metrics["runs"]
    gap = (
        m3["count_mod3/ghproduct[-1,1]"]["acc_eval_per_seed"][0]
        - m3["count_mod3/diag[0,1]"]["acc_eval_per_seed"][0]
    )
    assert ro["mod3-gh-product-beats-real-diagonal"]["observed"] == pytest.approx(gap)
    gap5 = (
        m3["mod_arith/deltanet[-1,1]"]["acc_eval_per_seed"][0]
        - m3["mod_arith/deltanet[0,1]"]["acc_eval_per_seed"][0]
    )
    assert ro["mod5-deltanet-pm1-at-least-01"]["observed"] == pytest.approx(gap5)
    assert ro["mod5-deltanet-pm1-at-least-01"]["holds"] == (gap5 >= 0)
    assert [c.name for c in rep.claims] == ["parity-diag-pm1-solves", "oracles-exact-at-10k"]
    assert set(plots(rep)) == {"accuracy_by_length", "parity_training_loss"}


def test_scales():
    quick, full = Config.quick(), Config.full()
    assert quick.experiments[0].task == "parity" and quick.experiments[0].seeds == 1
    assert full.experiments[0].seeds == 3 and {"lstm", "transformer"} <= set(full.experiments[0].models)
    assert [e.key for e in full.experiments] == ["parity", "parity-train-3-10", "count_mod3", "mod_arith"]
    short = full.experiments[1]
    assert (short.train_len, short.d_state, short.seeds, set(short.models)) == (
        (3, 10),
        16,
        3,
        {"diag[0,1]", "diag[-1,1]"},
    )
    assert (full.batch, full.warmup, full.train_len, full.eval_len, full.n_eval, full.oracle_len) == (
        64,
        50,
        (3, 40),
        (41, 256),
        1024,
        10_000,
    )


def test_bad_configs():
    with pytest.raises(ValueError, match="unknown models"):
        Block("parity", ("mamba2",), 1, 1, 8, 1, 1e-2)
    with pytest.raises(ValueError, match="unknown task"):
        Block("dyck", ("lstm",), 1, 1, 8, 1, 1e-2)
    with pytest.raises(ValueError, match="seeds must be an integer >= 1"):
        Block("parity", ("lstm",), 0, 1, 8, 1, 1e-2)
    with pytest.raises(ValueError, match=r"train_len\[1\] must be an integer >= 5"):
        Block("parity", ("lstm",), 1, 1, 8, 1, 1e-2, train_len=(5, 3))
    with pytest.raises(ValueError, match="train_mode must be"):
        Block("parity", ("lstm",), 1, 1, 8, 1, 1e-2, train_mode="scan")
    with pytest.raises(ValueError, match="first experiment must be parity"):
        Config(experiments=(Block("count_mod3", ("lstm",), 1, 1, 8, 1, 1e-2),))


def test_plots_have_labelled_axes_and_legends(smoke_report):
    figs = plots(smoke_report)
    for fig in figs.values():
        for ax in fig.axes:
            assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
            assert ax.get_legend() is not None


def test_short_training_block_claims_are_computed_from_the_core():
    """The diagonal block trained on lengths 3-10 (full run only): its three claims from single runs."""
    block = dataclasses.replace(SHORT_PARITY, seeds=2, steps=3)
    cfg = dataclasses.replace(
        Config.smoke(), experiments=(Block("parity", ("lstm",), 1, 1, 8, 1, 1e-2), block)
    )
    rep = run(cfg, seed=5)
    claims = {c.name: c for c in rep.claims}
    pm1 = [run_one(cfg, block, "diag[-1,1]", s).acc_eval for s in (5, 6)]
    zero_one = [run_one(cfg, block, "diag[0,1]", s).acc_eval for s in (5, 6)]
    assert claims["parity-diag-pm1-solves-short-train"].observed == min(pm1)  # the 2nd best of 2
    assert claims["parity-diag-01-fails-short-train"].observed == max(zero_one)
    gap = claims["parity-diag-pm1-minus-01-short-train"]
    assert gap.details["mean_difference"] == pytest.approx(sum(pm1) / 2 - sum(zero_one) / 2)
    assert gap.observed <= gap.details["mean_difference"]  # the CI's lower end
    assert "d_state 16" in gap.quantity and "lengths 3-10" in gap.quantity
    assert "parity-train-3-10/diag[-1,1]" in rep.metrics["runs"]
    assert set(plots(rep)) == {"accuracy_by_length", "parity_training_loss"}


def test_unavailable_device_is_refused_with_its_name():
    if torch.cuda.is_available():
        pytest.skip("a GPU is visible: cuda is available here")
    with pytest.raises(DeviceError, match="cuda"):
        run(Config.smoke(), device="cuda")
    with pytest.raises(DeviceError, match="tpu"):
        run(Config.smoke(), device="tpu")
    task = get_task("parity")
    model = LRNNLM(3, 2, 8, 1, "diag", "pm1", d_state=2, conv=0)
    with pytest.raises(DeviceError, match="cuda:1"):
        train(model, task, 1, device="cuda:1")
    with pytest.raises(DeviceError, match="cuda"):
        accuracy_by_length(model, task, 3, 5, 4, device=torch.device("cuda"))
    with pytest.raises(TypeError, match="device must be"):
        train(model, task, 1, device=0)  # type: ignore[arg-type]


def test_training_in_either_form_gives_the_same_losses():
    """train(mode="sequential") (used for short strings) and the parallel form: same loss curve."""
    task = get_task("parity")
    losses = []
    for mode in ("parallel", "sequential"):
        torch.manual_seed(0)
        model = LRNNLM(3, 2, 8, 1, "diag", "pm1", d_state=4, conv=0).double()
        losses.append(train(model, task, 5, batch=8, min_len=3, max_len=10, lr=1e-2, mode=mode).loss)
    assert losses[0] == pytest.approx(losses[1], abs=1e-9)
