"""The torch model against an independent numpy transcription of the official loop, and its invariants."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from barrel_snn.anatomy import FULL_SIZES, N_POP, P_REC, P_THAL, SIGNS, build_masks
from barrel_snn.models import BarrelSNN, loss_fn


def _inputs(batch: int, T: int, seed: int = 0, p: float = 0.15, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (
        (torch.rand(batch, T, 93, generator=g) < p).to(dtype),
        (torch.rand(batch, T, 93, generator=g) < p).to(dtype),
    )


def _numpy_official(model: BarrelSNN, xf: np.ndarray, xt: np.ndarray, order: str):
    """The official forward, written population by population, pair by pair, in numpy float64."""
    P = {k: v.detach().double().numpy() for k, v in model.named_parameters()}
    sl, n = model.slices, model.n
    # per-pair effective blocks from the COO values: W[j, i] (n_j, n_i)
    rec_t, rec_s = model.rec_index.numpy()
    coef = model.rec_coef.double().numpy()
    W = np.zeros((n, n))
    W[rec_s, rec_t] = np.clip(P["w_rec"], 0, 1) * coef
    th_t, th_s = model.th_index.numpy()
    Wth = np.zeros((200, n))
    Wth[th_s, th_t] = np.clip(P["w_th"], 0, 1)
    st = {k: v.double().numpy() for k, v in model.initial_state(xf.shape[0]).items()}
    b0, beta = model.init_b, 1.8

    def alif(cur_in, u, s, b, tau_m, tau_a):
        a, r = np.exp(-1 / tau_m), np.exp(-1 / tau_a)
        b = r * b + (1 - r) * s
        th = b0 + beta * b
        u = a * u + (1 - a) * cur_in - th * s
        return u, (u - th > 0).astype(float), b

    u_th, s_th, b_th = st["u_th"], st["s_th"], np.full_like(st["u_th"], b0)
    u = [st["u"][:, s] for s in sl]
    s_ = [st["s"][:, s] for s in sl]
    b = [np.full_like(x, b0) for x in u]
    out = np.zeros((xf.shape[0], 3))
    raster = []
    for t in range(xf.shape[1]):
        f = xf[:, t] @ P["fc_f.weight"].T + P["fc_f.bias"]
        q = xt[:, t] @ P["fc_t.weight"].T + P["fc_t.bias"]
        drive = np.concatenate([f, q], 1) @ P["barrelloid.weight"].T + P["barrelloid.bias"]
        u_th, s_th, b_th = alif(drive, u_th, s_th, b_th, P["th_tau_m"], P["th_tau_adp"])
        old = [x.copy() for x in s_]
        for i in range(N_POP):
            cur = s_th @ Wth[:, sl[i]] if P_THAL[i] > 0 else 0.0
            for j in range(N_POP):
                if P_REC[j, i] == 0:
                    continue
                src = s_[j] if (order == "sequential" and j < i) else old[j]
                cur = cur + src @ W[sl[j], sl[i]]
            u[i], s_[i], b[i] = alif(cur, u[i], old[i], b[i], P["tau_m"][sl[i]], P["tau_adp"][sl[i]])
        if t > 0:
            h = np.concatenate([s_[0], s_[1], s_[4]], 1) @ P["fc2_1.weight"].T + P["fc2_1.bias"]
            z = h @ P["fc2_2.weight"].T + P["fc2_2.bias"]
            e = np.exp(z - z.max(1, keepdims=True))
            out += e / e.sum(1, keepdims=True)
        raster.append(np.concatenate(s_, 1))
    return out, np.stack(raster)


@pytest.mark.parametrize("order", ["sequential", "jacobi"])
@pytest.mark.parametrize("sparse", [False, True])
def test_forward_equals_numpy_transcription(order, sparse):
    model = BarrelSNN(scale=0.03, update_order=order, sparse=sparse, dtype=torch.float64, seed=1, init_w=0.3)
    xf, xt = _inputs(2, 40)
    with torch.no_grad():
        out, rec = model(xf, xt, record=True)
    ref_out, ref_raster = _numpy_official(model, xf.numpy(), xt.numpy(), order)
    assert rec is not None and rec.spikes.sum() > 20  # the comparison must involve spikes
    np.testing.assert_array_equal(rec.spikes.numpy(), ref_raster)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-10)


def test_sequential_and_jacobi_rasters_differ():
    xf, xt = _inputs(2, 40)
    rasters = []
    for order in ("sequential", "jacobi"):
        m = BarrelSNN(scale=0.03, update_order=order, dtype=torch.float64, seed=1, init_w=0.3)
        with torch.no_grad():
            rasters.append(m(xf, xt, record=True)[1].spikes)  # type: ignore[union-attr]
    assert not torch.equal(rasters[0], rasters[1])


def test_synapses_follow_masks_signs_and_gains():
    model = BarrelSNN(scale=0.05, dtype=torch.float64, mask_seed=9)
    _, masks = build_masks(0.05, seed=9)
    _, rec = model.dense_weights()
    rec = rec.detach().numpy()
    sl = model.slices
    for j in range(N_POP):
        for i in range(N_POP):
            block = rec[sl[j], sl[i]]
            if P_REC[j, i] == 0:
                assert not block.any()
                continue
            np.testing.assert_array_equal(block != 0, masks[(j, i)])
            gain = FULL_SIZES[j] / model.sizes[j]
            vals = block[masks[(j, i)]] * SIGNS[j] / gain
            assert (vals >= 0).all() and (vals <= model.init_w).all()


def test_mask_invariance_through_an_optimizer_step():
    model = BarrelSNN(scale=0.03, dtype=torch.float64, seed=2, init_w=0.3)
    xf, xt = _inputs(3, 25)
    opt = torch.optim.Adam(model.parameters(), lr=0.5)  # big steps push values out of [0, 1]
    for _ in range(2):
        opt.zero_grad()
        out, _ = model(xf, xt)
        loss_fn(out, torch.tensor([0, 1, 2]), 25).backward()
        opt.step()
    assert (model.w_rec.detach().abs() > 0).any()
    out, _ = model(xf, xt)  # a forward clamps the values into [0, 1]
    assert float(model.w_rec.detach().min()) >= 0 and float(model.w_rec.detach().max()) <= 1
    _, rec = model.dense_weights()
    mask = torch.zeros_like(rec, dtype=torch.bool)
    mask[model.rec_index[1], model.rec_index[0]] = True
    assert torch.count_nonzero(rec.detach()[~mask]) == 0
    pop = torch.as_tensor(model.neuron_population())
    sign = torch.as_tensor(SIGNS)[pop][:, None]
    assert (rec.detach() * sign >= 0).all()


def test_readout_uses_populations_0_1_4_only():
    model = BarrelSNN(scale=0.05)
    pop = model.neuron_population()[model.readout_index.numpy()]
    assert set(pop.tolist()) == {0, 1, 4}
    assert model.fc2_1.in_features == model.sizes[0] + model.sizes[1] + model.sizes[4]
    xf, xt = _inputs(1, 12, dtype=torch.float32)  # batch of one must work (official .squeeze() broke it)
    out, _ = model(xf, xt)
    assert out.shape == (1, 3)
    assert float(out.detach().sum()) == pytest.approx(11.0, rel=1e-5)  # 11 softmaxes summed (t >= 1)


def test_gradients_reach_every_trained_parameter():
    model = BarrelSNN(scale=0.03, seed=0, init_w=0.3)
    xf, xt = _inputs(2, 20, dtype=torch.float32)
    out, _ = model(xf, xt)
    loss_fn(out, torch.tensor([0, 2]), 20).backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all(), name
        assert p.grad.abs().sum() > 0, name


def test_bad_inputs_are_refused():
    model = BarrelSNN(scale=0.02)
    good = torch.zeros(2, 10, 93)
    with pytest.raises(ValueError, match=r"must have shape \(batch, T, 93\)"):
        model(torch.zeros(2, 10, 92), torch.zeros(2, 10, 92))
    with pytest.raises(ValueError, match="same shape"):
        model(good, torch.zeros(2, 11, 93))
    with pytest.raises(TypeError, match=r"must be a torch\.Tensor"):
        model(good.numpy(), good)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale must be a finite number in"):
        BarrelSNN(scale=0.0)
    with pytest.raises(ValueError, match="scale must be a finite number in"):
        BarrelSNN(scale=1.01)
    with pytest.raises(ValueError, match="update_order must be one of"):
        BarrelSNN(scale=0.02, update_order="random")


@pytest.mark.parametrize("order", ["sequential", "jacobi"])
def test_sparse_csr_training_step_equals_dense_step(order):
    # the CSR synapses and the batched thalamic product (issue 40) against the dense masked matmul:
    # the same loss and gradients to float64 round-off over a few steps and one optimiser step
    xf, xt = _inputs(4, 6, seed=2)
    y = torch.tensor([0, 1, 2, 0])
    models = [
        BarrelSNN(scale=0.05, update_order=order, sparse=sp, dtype=torch.float64, seed=1)
        for sp in (False, True)
    ]
    grads = []
    for m in models:
        out, _ = m(xf, xt)
        loss = loss_fn(out, y, 6)
        loss.backward()
        grads.append((loss.item(), {k: p.grad.clone() for k, p in m.named_parameters()}))
    (l_d, g_d), (l_s, g_s) = grads
    assert abs(l_d - l_s) < 1e-12
    assert g_d["w_rec"].abs().sum() > 0
    for k in g_d:
        torch.testing.assert_close(g_s[k], g_d[k], rtol=1e-9, atol=1e-12, msg=k)
