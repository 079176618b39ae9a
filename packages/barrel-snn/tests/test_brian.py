"""brian2 against torch: spike for spike under the jacobi order; the sequential order must differ."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from barrel_snn.brian import compare_with_torch, compiler_available, resolve_target, simulate
from barrel_snn.models import BarrelSNN

pytest.importorskip("brian2")


def _inputs(batch: int, T: int, dtype=torch.float64):
    g = torch.Generator().manual_seed(4)
    return tuple((torch.rand(batch, T, 93, generator=g) < 0.15).to(dtype) for _ in range(2))


def test_brian2_equals_torch_jacobi_float64():
    model = BarrelSNN(scale=0.04, update_order="jacobi", dtype=torch.float64, seed=3, init_w=0.2)
    xf, xt = _inputs(2, 50)
    res = compare_with_torch(model, xf, xt, trials=2)
    assert res["torch_spikes"] > 100
    assert res["mismatches"] == 0 and res["identical_fraction"] == 1.0


@pytest.mark.slow
@pytest.mark.skipif(not compiler_available(), reason="no C++ compiler")
@pytest.mark.parametrize("target", ["cython", "cpp_standalone"])
def test_compiled_brian2_targets_equal_torch_jacobi_float64(target, tmp_path):
    # the compiled targets (first compile minutes on a loaded 2-core machine: slow) keep the raster
    if target == "cython":
        pytest.importorskip("Cython")
    model = BarrelSNN(scale=0.04, update_order="jacobi", dtype=torch.float64, seed=3, init_w=0.2)
    xf, xt = _inputs(2, 50)
    res = compare_with_torch(model, xf, xt, trials=2, target=target, directory=str(tmp_path))
    assert res["target"] == target and res["torch_spikes"] > 100
    assert res["mismatches"] == 0 and res["identical_fraction"] == 1.0


def test_auto_target_resolves_to_a_compiled_target_or_numpy_with_a_notice(monkeypatch):
    import barrel_snn.brian as br

    assert resolve_target("numpy") == "numpy"
    if compiler_available():
        assert resolve_target("auto") == "cpp_standalone"
    monkeypatch.setattr(br.shutil, "which", lambda name: None)
    with pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler found"):
        assert resolve_target("auto") == "numpy"
    with pytest.raises(RuntimeError, match="target='cython' needs a C\\+\\+ compiler"):
        resolve_target("cython")


def test_brian2_differs_from_torch_sequential():
    model = BarrelSNN(scale=0.04, update_order="sequential", dtype=torch.float64, seed=3, init_w=0.2)
    xf, xt = _inputs(1, 50)
    res = compare_with_torch(model, xf, xt, trials=1)
    assert res["mismatches"] > 0


def test_single_neuron_in_brian2_follows_the_closed_form():
    # one neuron, no recurrent synapse firing (weight 0), one thalamic synapse of weight 2 fed every step
    T = 30
    params = {
        "th_i": np.array([0]), "th_j": np.array([0]), "th_w": np.array([2.0]),
        "rec_i": np.array([0]), "rec_j": np.array([0]), "rec_w": np.array([0.0]),
        "alpha": np.array([np.exp(-0.1)]), "rho": np.array([np.exp(-0.2)]), "b0": 0.04, "beta_a": 1.8,
    }  # fmt: skip
    thal = np.zeros((T, 200), dtype=bool)
    thal[:, 0] = True
    run = simulate(params, thal, np.zeros(1), np.zeros(1))
    a, r = np.exp(-0.1), np.exp(-0.2)
    u, s, b, ref = 0.0, 0.0, 0.04, []
    for _ in range(T):
        b = r * b + (1 - r) * s
        u = a * u + (1 - a) * 2.0 - (0.04 + 1.8 * b) * s
        s = float(u > 0.04 + 1.8 * b)
        ref.append(s)
    assert sum(ref) > 3
    np.testing.assert_array_equal(run.spikes[:, 0], np.array(ref, dtype=bool))


def test_bad_brian_inputs():
    model = BarrelSNN(scale=0.02, update_order="jacobi", dtype=torch.float64)
    xf, xt = _inputs(1, 5)
    with pytest.raises(ValueError, match=r"trials must be an integer in \[1, 1\]"):
        compare_with_torch(model, xf, xt, trials=2)
    with pytest.raises(ValueError, match=r"thalamic must have shape \(T, 200\)"):
        simulate(model.export(), np.zeros((5, 10)), np.zeros(model.n), np.zeros(model.n))
    with pytest.raises(ValueError, match="target must be one of"):
        simulate(model.export(), np.zeros((5, 200)), np.zeros(model.n), np.zeros(model.n), target="gpu")
    with pytest.raises(ValueError, match="target must be one of"):
        compare_with_torch(model, xf, xt, target="cuda")
