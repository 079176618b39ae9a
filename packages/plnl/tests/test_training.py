"""The PLNL epoch's cross use of the peer's queue, the one-visit lag, and diagnostics that never train."""

from __future__ import annotations

import torch
from plnl.labels import uniform_complementary
from plnl.methods import build_model
from plnl.training import LabelState, PLNLConfig, TrainConfig, fit_plnl, plnl_epoch, predict

N, K = 24, 4


def _data():
    g = torch.Generator().manual_seed(0)
    y = torch.arange(N) % K
    x = torch.rand(N, 1, 4, 4, generator=g) + y[:, None, None, None] * 0.5
    C0 = torch.as_tensor(uniform_complementary(y.numpy(), K, seed=0))
    return x, y, C0


def _fake_queue(cls: int) -> list[torch.Tensor]:
    """Three epochs of logits that put every example firmly on class ``cls``."""
    logits = torch.full((N, K), -10.0)
    logits[:, cls] = 10.0
    return [logits.clone() for _ in range(3)]


def _epoch(peer: list[torch.Tensor], C0: torch.Tensor, x: torch.Tensor) -> LabelState:
    cfg = PLNLConfig(train=TrainConfig(epochs=1, batch_size=8), pre_epochs=0, k=3, weps=0, nle=False)
    state = LabelState(C0.clone(), torch.zeros(N, dtype=torch.bool), torch.zeros(N, dtype=torch.int64))
    model = build_model(16, K, seed=0)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    plnl_epoch(model, opt, state, peer, x, C0, epoch=0, cfg=cfg, gen=torch.Generator().manual_seed(0))
    return state


def test_plg_reads_only_the_queue_it_is_given():
    x, _, C0 = _data()
    for cls in (1, 2):
        state = _epoch(_fake_queue(cls), C0, x)
        # every example whose C0 does not exclude cls is flagged with pseudo-label cls, the rest not
        allowed = C0[:, cls] == 0
        assert torch.equal(state.flags, allowed)
        assert bool((state.y_hat[state.flags] == cls).all())


def test_no_plg_before_the_queue_is_full():
    x, _, C0 = _data()
    state = _epoch(_fake_queue(1)[:2], C0, x)  # qs = 3 but only two epochs saved
    assert not bool(state.flags.any())


def test_y_true_feeds_diagnostics_only_and_two_networks_start_from_one_checkpoint():
    x, y, C0 = _data()
    cfg = PLNLConfig(train=TrainConfig(epochs=4, batch_size=8), pre_epochs=2, k=3, weps=1, lam=0.5)
    fn = lambda s: build_model(16, K, seed=s)  # noqa: E731
    a = fit_plnl(fn, x, C0, cfg=cfg, seed=3, y_true=y)
    b = fit_plnl(fn, x, C0, cfg=cfg, seed=3)
    assert torch.equal(predict(a.models, x), predict(b.models, x))
    assert "plg_right" in a.history and "plg_right" not in b.history
    assert len(a.models) == 2 and len(a.history["flagged"]) == 4
    single = fit_plnl(fn, x, C0, cfg=cfg.scaled(two_networks=False), seed=3)
    assert len(single.models) == 1
    # NLE never removes an original label and the final C is the rebuild from C0
    assert bool((a.C >= C0).all())


def test_k2_one_label_fixes_the_label_and_plnl_learns_it():
    g = torch.Generator().manual_seed(1)
    y = torch.arange(40) % 2
    x = torch.randn(40, 1, 2, 2, generator=g) + 2.0 * (2 * y[:, None, None, None] - 1)
    C0 = torch.as_tensor(uniform_complementary(y.numpy(), 2, seed=0))
    assert torch.equal(C0.argmax(1), 1 - y)  # K = 2: the one complementary label is the other class
    cfg = PLNLConfig(train=TrainConfig(epochs=6, batch_size=8, lr=0.05), pre_epochs=4, k=3, weps=2, lam=0.9)
    fit = fit_plnl(lambda s: build_model(4, 2, seed=s), x, C0, cfg=cfg, seed=0, y_true=y)
    assert float((predict(fit.models, x).argmax(1) == y).float().mean()) >= 0.95
