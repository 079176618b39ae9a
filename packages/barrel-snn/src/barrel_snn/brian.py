"""Export a :class:`~barrel_snn.models.BarrelSNN` to brian2 and simulate its cortex there.

The brian2 network reproduces the torch network's ``"jacobi"`` update order step for step, in float64:

* one ``NeuronGroup`` of N neurons with variables u, s, b (ALIF state) and I (input accumulator); its
  threshold ``s > 0.5`` (after the first step) emits at step k the spikes s_{k-1} computed at step k-1;
* recurrent ``Synapses(on_pre="I_post += w")`` (signed, gained weights) deliver them at step k, with no
  extra delay (so a spike of step k-1 acts at step k: the one-step delivery of the torch model);
* the thalamic spikes (computed by the torch thalamic stage: the same input to both simulators) enter
  through a ``SpikeGeneratorGroup`` and ``Synapses(on_pre="I_post += w")`` at their own step;
* a ``run_regularly`` block at the end of every step applies the discrete ALIF equations and clears I.

The official initial spike state s_0 is real-valued (U(0, 1)), which no spike can carry: its input
W^T s_0 is put into I before the run instead. One step of the model is 1 ms of brian2 time; spikes of
the SpikeMonitor at time k ms are the model's step k-1.

Code generation (``target``): ``"numpy"`` (runtime, no compiler), ``"cython"`` (runtime, compiled; the
first compile of each code object is cached by brian2 in ``~/.cython/brian_extensions``),
``"cpp_standalone"`` (the whole network compiled to a C++ program in a fresh directory per run), or
``"auto"``: cpp_standalone where a C++ compiler is found (the fastest per simulated second at full scale),
else numpy with a one-line :class:`RuntimeWarning`.
"""

from __future__ import annotations

import gc
import shutil
import tempfile
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit.validation import check_choice, check_int

from barrel_snn.models import BarrelSNN

TARGETS = ("auto", "numpy", "cython", "cpp_standalone")

_UPDATE = """
b = rho * b + (1 - rho) * s
u = alpha * u + (1 - alpha) * I - (b0 + beta_a * b) * s
s = int(u > b0 + beta_a * b)
I = 0
"""


@dataclass(frozen=True)
class BrianRun:
    """A brian2 simulation: ``spikes`` (T, N) bool raster, ``build_s`` and ``run_s`` wall seconds,
    ``run_cpu_s`` CPU seconds of the run (cpp_standalone: of the compiled program, a child process),
    and the concrete ``target``."""

    spikes: np.ndarray
    build_s: float
    run_s: float
    target: str = "numpy"
    run_cpu_s: float = float("nan")


def compiler_available() -> bool:
    """Whether a C++ compiler is on PATH (what brian2's cython and cpp_standalone targets need)."""
    return any(shutil.which(c) is not None for c in ("g++", "c++", "clang++"))


def resolve_target(target: str) -> str:
    """The concrete target for ``target``; ``"auto"`` is cpp_standalone with a compiler, else numpy
    (with a one-line notice). An explicit compiled target without a compiler raises ``RuntimeError``."""
    check_choice(target, "target", TARGETS)
    if target == "numpy":
        return target
    if compiler_available():
        return "cpp_standalone" if target == "auto" else target
    if target == "auto":
        warnings.warn(
            "barrel_snn.brian: no C++ compiler found, brian2 falls back to numpy",
            RuntimeWarning,
            stacklevel=2,
        )
        return "numpy"
    raise RuntimeError(f"target={target!r} needs a C++ compiler (g++, c++ or clang++), none found on PATH")


def to_brian2(
    params: Mapping[str, Any],
    thalamic: np.ndarray,
    u0: np.ndarray,
    s0: np.ndarray,
    target: str = "numpy",
) -> tuple[Any, Any]:
    """Build the brian2 ``Network`` of one trial.

    Args:
        params: :meth:`BarrelSNN.export` of the model (weights, decays, b0, beta_a).
        thalamic: (T, 200) 0/1 thalamic spikes of the trial.
        u0, s0: (N,) initial membrane potential and (real-valued) spike state.
        target: brian2 runtime code-generation target, ``"numpy"`` (default) or ``"cython"``; for
            cpp_standalone use :func:`simulate`, which sets up the standalone device around this call.

    Returns:
        (network, spike_monitor).
    """
    import brian2 as b2

    check_choice(target, "target", ("numpy", "cython"))
    b2.prefs.codegen.target = target
    alpha = np.asarray(params["alpha"], dtype=np.float64)
    n = alpha.shape[0]
    thalamic = np.asarray(thalamic)
    if thalamic.ndim != 2 or thalamic.shape[1] != 200:
        raise ValueError(f"thalamic must have shape (T, 200), got {thalamic.shape}")
    if np.shape(u0) != (n,) or np.shape(s0) != (n,):
        raise ValueError(f"u0 and s0 must have shape ({n},), got {np.shape(u0)} and {np.shape(s0)}")
    dt = 1 * b2.ms
    eqs = """
    u : 1
    s : 1
    b : 1
    I : 1
    alpha : 1 (constant)
    rho : 1 (constant)
    """
    ns = {"b0": float(params["b0"]), "beta_a": float(params["beta_a"])}
    g = b2.NeuronGroup(
        n, eqs, threshold="s > 0.5 and t > 0.5*ms", reset="", dt=dt, namespace=ns, name="cortex"
    )
    g.alpha = alpha
    g.rho = np.asarray(params["rho"], dtype=np.float64)
    g.u = np.asarray(u0, dtype=np.float64)
    g.s = np.asarray(s0, dtype=np.float64)
    g.b = ns["b0"]
    rec_i, rec_j = np.asarray(params["rec_i"]), np.asarray(params["rec_j"])
    rec_w = np.asarray(params["rec_w"], dtype=np.float64)
    g.I = np.bincount(rec_j, weights=rec_w * np.asarray(s0, dtype=np.float64)[rec_i], minlength=n)
    g.run_regularly(_UPDATE, when="end", name="alif_update")
    syn = b2.Synapses(g, g, "w : 1", on_pre="I_post += w", dt=dt, name="recurrent")
    syn.connect(i=rec_i, j=rec_j)
    syn.w = rec_w
    steps, idx = np.nonzero(thalamic)
    gen = b2.SpikeGeneratorGroup(200, idx, steps * dt, dt=dt, name="thalamus")
    th = b2.Synapses(gen, g, "w : 1", on_pre="I_post += w", dt=dt, name="thalamocortical")
    th.connect(i=np.asarray(params["th_i"]), j=np.asarray(params["th_j"]))
    th.w = np.asarray(params["th_w"], dtype=np.float64)
    mon = b2.SpikeMonitor(g, name="spikes")
    return b2.Network(g, syn, gen, th, mon), mon


def simulate(
    params: Mapping[str, Any],
    thalamic: np.ndarray,
    u0: np.ndarray,
    s0: np.ndarray,
    target: str = "numpy",
    directory: str | None = None,
) -> BrianRun:
    """Simulate T = len(thalamic) steps in brian2 and return the (T, N) raster of s_1..s_T.

    ``target`` is one of :data:`TARGETS` (see the module notes). For cpp_standalone, ``directory`` is
    the project folder (reused: brian2 rewrites only changed sources, so a rerun of a network of the same
    sizes only relinks); None gives a fresh temporary folder, removed afterwards. ``run_s`` is the
    simulation loop alone (cpp_standalone: the program's own timer), ``build_s`` everything before it
    (network construction, code generation and compilation).
    """
    tgt = resolve_target(target)
    if tgt == "cpp_standalone":
        return _simulate_standalone(params, thalamic, u0, s0, directory)
    import brian2 as b2

    t0 = time.perf_counter()
    net, mon = to_brian2(params, thalamic, u0, s0, tgt)
    t1, c1 = time.perf_counter(), time.process_time()
    net.run((thalamic.shape[0] + 1) * b2.ms, namespace={})
    t2, c2 = time.perf_counter(), time.process_time()
    return BrianRun(_raster(mon, thalamic.shape[0], len(u0)), t1 - t0, t2 - t1, tgt, c2 - c1)


def _raster(mon: Any, T: int, n: int) -> np.ndarray:
    import brian2 as b2

    raster = np.zeros((T, n), dtype=bool)
    k = np.round(np.asarray(mon.t / b2.ms)).astype(np.int64) - 1
    raster[k, np.asarray(mon.i)] = True
    return raster


def _simulate_standalone(
    params: Mapping[str, Any], thalamic: np.ndarray, u0: np.ndarray, s0: np.ndarray, directory: str | None
) -> BrianRun:
    import brian2 as b2

    folder = directory if directory is not None else tempfile.mkdtemp(prefix="barrel_snn_cpp_")
    gc.collect()  # dead networks of earlier calls free their code-object names: same sources, no recompile
    t0 = time.perf_counter()
    b2.set_device("cpp_standalone", directory=folder, build_on_run=False)
    try:
        net, mon = to_brian2(params, thalamic, u0, s0, "numpy")  # the runtime target is unused here
        net.run((thalamic.shape[0] + 1) * b2.ms, namespace={})
        b2.device.build(directory=folder, compile=True, run=False, with_output=False)
        c0 = _children_cpu()
        b2.device.run(directory=folder, results_directory="results", with_output=False, run_args=[])
        cpu = _children_cpu() - c0
        total = time.perf_counter() - t0
        run_s = float(b2.device._last_run_time)
        raster = _raster(mon, thalamic.shape[0], len(u0))
    finally:
        b2.device.reinit()
        b2.set_device("runtime")
        if directory is None:
            shutil.rmtree(folder, ignore_errors=True)
    return BrianRun(raster, total - run_s, run_s, "cpp_standalone", cpu)


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def compare_with_torch(
    model: BarrelSNN,
    x_force: torch.Tensor,
    x_torque: torch.Tensor,
    trials: int = 1,
    target: str = "numpy",
    directory: str | None = None,
) -> dict[str, Any]:
    """Run ``trials`` samples through the torch model (its own order and dtype) and through brian2 on the
    torch thalamic spikes; return both rasters (trials, T, N) and the fraction of identical entries.

    Spike-for-spike agreement is expected for ``update_order="jacobi"`` (float64 exactly, float32 up to
    round-off); the official ``"sequential"`` order differs on purpose. ``target`` and ``directory`` as
    in :func:`simulate` (cpp_standalone trials share one project folder, so only the first compiles).
    """
    check_int(trials, "trials", low=1, high=x_force.shape[0])
    tgt = resolve_target(target)
    folder = directory
    if tgt == "cpp_standalone" and directory is None:
        folder = tempfile.mkdtemp(prefix="barrel_snn_cpp_")
    with torch.no_grad():
        _, rec = model(x_force[:trials], x_torque[:trials], record=True)
        state = model.initial_state(trials)
    assert rec is not None
    params = model.export()
    torch_r = rec.spikes.cpu().numpy().transpose(1, 0, 2) > 0.5  # (trials, T, N)
    brian_r, build, run = [], 0.0, 0.0
    for k in range(trials):
        res = simulate(
            params,
            rec.thalamic[:, k].cpu().numpy() > 0.5,
            state["u"][k].double().cpu().numpy(),
            state["s"][k].double().cpu().numpy(),
            tgt,
            folder,
        )
        brian_r.append(res.spikes)
        build += res.build_s
        run += res.run_s
    if folder is not None and directory is None:
        shutil.rmtree(folder, ignore_errors=True)
    b = np.stack(brian_r)
    return {
        "torch": torch_r,
        "brian2": b,
        "identical_fraction": float(np.mean(torch_r == b)),
        "mismatches": int(np.sum(torch_r != b)),
        "torch_spikes": int(torch_r.sum()),
        "brian2_spikes": int(b.sum()),
        "build_s": build,
        "run_s": run,
        "target": tgt,
    }


__all__ = [
    "TARGETS",
    "BrianRun",
    "compare_with_torch",
    "compiler_available",
    "resolve_target",
    "simulate",
    "to_brian2",
]
