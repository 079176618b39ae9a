"""The biologically constrained barrel-column RSNN (official ``SRNN_bfd``); ``scale`` gives smaller copies.

Structure (per time step t):
  force spikes (93) -> Linear(93, 100); torque spikes (93) -> Linear(93, 100); concat -> Linear(200, 200)
  -> 200 thalamic ALIF neurons -> (masked, >= 0) -> 11 cortical populations;
  13 cortical populations of ALIF neurons, recurrent masked synapses W >= 0 with the sign of the source
  population (Dale's law); readout spikes of populations 0, 1, 4 -> Linear(n, 128) -> Linear(128, 3) ->
  softmax, summed over t >= 1.

Synapses are stored as the values of the fixed masks' non-zero entries (COO), so entries outside the
masks are structurally 0 and get no gradient; the values are clamped to [0, 1] in place before every
forward (official ``SparseLinear2.forward``). At ``scale < 1`` every recurrent synapse from population j
carries the fixed gain N_j / n_j (full over scaled size) so the expected input to a neuron is kept.
``sparse=False`` multiplies by the dense masked matrix, ``sparse=True`` by a sparse CSR matrix: the same
numbers up to floating-point summation order.

Update order: ``"sequential"`` (official) updates populations 0..12 in turn, so sources j < i act with
their step-t spikes and j >= i with step t-1; ``"jacobi"`` uses step t-1 for every recurrent source (the
order brian2 simulates). In both, the thalamic spikes of step t drive the cortex at step t.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from paperkit.validation import check_choice, check_positive
from torch import nn
from torch.nn import functional as F

from barrel_snn.anatomy import (
    FULL_SIZES,
    N_POP,
    N_THALAMUS,
    READOUT_POPS,
    SIGNS,
    build_masks,
    check_scale,
    population_sizes,
    population_slices,
)
from barrel_snn.neurons import BETA_A, TAU_MIN, alif_step, spike_fn

N_CHANNELS = 93  # 31 whiskers x 3 points
UPDATE_ORDERS = ("sequential", "jacobi")
INIT_STATES = ("uniform", "zeros")


@dataclass(frozen=True)
class Recording:
    """Spike trains of one forward: ``spikes`` (T, batch, N) cortical, ``thalamic`` (T, batch, 200)."""

    spikes: torch.Tensor
    thalamic: torch.Tensor


def coo_synapses(
    scale: float, mask_seed: int, sizes: tuple[int, ...], slices: list[slice]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fixed masks of :func:`~barrel_snn.anatomy.build_masks` as COO arrays with global neuron indices:
    thalamic (source, target), recurrent (source, target) and the recurrent coefficient sign_j · gain_j
    (gain = full-scale size / scaled size of the source population j)."""
    thal, rec = build_masks(scale, mask_seed)
    th_src, th_tgt = [], []
    for i, m in thal.items():
        r, c = np.nonzero(m)
        th_src.append(r)
        th_tgt.append(c + slices[i].start)
    src, tgt, coef = [], [], []
    for (j, i), m in rec.items():
        r, c = np.nonzero(m)
        src.append(r + slices[j].start)
        tgt.append(c + slices[i].start)
        coef.append(np.full(len(r), SIGNS[j] * (FULL_SIZES[j] / sizes[j])))
    cat = np.concatenate
    return cat(th_src), cat(th_tgt), cat(src), cat(tgt), cat(coef)


class BarrelSNN(nn.Module):
    """The constrained barrel-cortex RSNN.

    Args:
        scale: fraction of the 4,218-neuron column in (0, 1]; sizes round(N * scale), at least 1.
        init_w: synaptic weights start U(0, init_w) inside the masks (official 0.06).
        init_b: baseline threshold b0 and initial adaptation variable (official 0.04).
        update_order: ``"sequential"`` (official) or ``"jacobi"``.
        sparse: sparse (CSR) synapses (True) or dense masked matmuls (False).
        init_state: ``"uniform"`` (official: u0, s0 ~ U(0, 1), reseeded with ``init_seed`` each forward)
            or ``"zeros"``.
        mask_seed: seed of the Bernoulli masks; ``seed``: seed of the weight initialisation.
        tau_m, tau_adp: initial time constants (official 10, 5).
        device, dtype: where the parameters live.
    """

    th_index: torch.Tensor  # (2, E_th) buffer: (post neuron, thalamic pre neuron), sorted by post
    rec_index: torch.Tensor  # (2, E) buffer: (post, pre), sorted by post then pre
    rec_coef: torch.Tensor  # (E,) buffer: sign x gain of the presynaptic population
    readout_index: torch.Tensor  # (n_readout,) non-persistent buffer: neurons of populations 0, 1, 4

    def __init__(
        self,
        scale: float = 1.0,
        init_w: float = 0.06,
        init_b: float = 0.04,
        update_order: str = "sequential",
        sparse: bool = True,
        init_state: str = "uniform",
        mask_seed: int = 515,
        seed: int = 515,
        init_seed: int = 515,
        tau_m: float = 10.0,
        tau_adp: float = 5.0,
        input_size: int = N_CHANNELS,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        self.scale = check_scale(scale)
        check_choice(update_order, "update_order", UPDATE_ORDERS)
        check_choice(init_state, "init_state", INIT_STATES)
        check_positive(init_w, "init_w")
        check_positive(init_b, "init_b")
        self.init_w, self.init_b = float(init_w), float(init_b)
        self.update_order, self.sparse, self.init_state = update_order, bool(sparse), init_state
        self.init_seed, self.input_size = int(init_seed), int(input_size)
        self.sizes = population_sizes(self.scale)
        self.slices = population_slices(self.sizes)
        self.n = int(sum(self.sizes))
        gen = torch.Generator().manual_seed(int(seed))
        kw: dict[str, Any] = {"device": device, "dtype": dtype}

        # Thalamic stage (official fc_f, fc_t, barrelloid; xavier on fc_f / fc_t).
        self.fc_f = nn.Linear(input_size, 100, **kw)
        self.fc_t = nn.Linear(input_size, 100, **kw)
        self.barrelloid = nn.Linear(200, N_THALAMUS, **kw)
        with torch.no_grad():
            for lin in (self.fc_f, self.fc_t, self.barrelloid):
                bound_w = (1.0 / lin.in_features) ** 0.5
                lin.bias.copy_(torch.empty(lin.out_features).uniform_(-bound_w, bound_w, generator=gen))
            for lin in (self.fc_f, self.fc_t):
                a = (6.0 / (lin.in_features + lin.out_features)) ** 0.5
                lin.weight.copy_(torch.empty_like(lin.weight, device="cpu").uniform_(-a, a, generator=gen))
            a = (1.0 / 200) ** 0.5  # kaiming_uniform(a=sqrt 5) default of nn.Linear
            self.barrelloid.weight.copy_(torch.empty(200, 200).uniform_(-a, a, generator=gen))
        self.th_tau_m = nn.Parameter(torch.full((N_THALAMUS,), float(tau_m), **kw))
        self.th_tau_adp = nn.Parameter(torch.full((N_THALAMUS,), float(tau_adp), **kw))

        # Masks -> COO indices (rows presynaptic, columns postsynaptic, global indices).
        th_src_a, th_tgt_a, src_a, tgt_a, coef_a = coo_synapses(
            self.scale, mask_seed, self.sizes, self.slices
        )
        o = np.lexsort((th_src_a, th_tgt_a))  # sorted by (target, source): a coalesced transposed COO
        self.register_buffer("th_index", torch.as_tensor(np.stack([th_tgt_a[o], th_src_a[o]]), device=device))
        o = np.lexsort((src_a, tgt_a))
        self.register_buffer("rec_index", torch.as_tensor(np.stack([tgt_a[o], src_a[o]]), device=device))
        self.register_buffer("rec_coef", torch.as_tensor(coef_a[o], **kw))
        self.w_th = nn.Parameter(torch.empty(len(th_src_a), **kw))
        self.w_rec = nn.Parameter(torch.empty(len(src_a), **kw))
        with torch.no_grad():
            self.w_th.copy_(torch.rand(len(th_src_a), generator=gen) * init_w)
            self.w_rec.copy_(torch.rand(len(src_a), generator=gen) * init_w)

        # Cortical neurons: per-neuron time constants.
        self.tau_m = nn.Parameter(torch.full((self.n,), float(tau_m), **kw))
        self.tau_adp = nn.Parameter(torch.full((self.n,), float(tau_adp), **kw))
        readout = torch.cat([torch.arange(self.slices[k].start, self.slices[k].stop) for k in READOUT_POPS])
        self.register_buffer("readout_index", readout.to(device), persistent=False)  # moves with .to()
        n_ro = len(self.readout_index)
        self.fc2_1 = nn.Linear(n_ro, 128, **kw)
        self.fc2_2 = nn.Linear(128, 3, **kw)
        with torch.no_grad():
            for lin in (self.fc2_1, self.fc2_2):
                a = (6.0 / (lin.in_features + lin.out_features)) ** 0.5
                lin.weight.copy_(torch.empty(lin.weight.shape).uniform_(-a, a, generator=gen))
                bound_w = (1.0 / lin.in_features) ** 0.5
                lin.bias.copy_(torch.empty(lin.out_features).uniform_(-bound_w, bound_w, generator=gen))

    # ----------------------------------------------------------------------------------------------
    def constrain_(self) -> None:
        """Project in place: synaptic values onto [0, 1], time constants onto [1, inf)."""
        with torch.no_grad():
            self.w_th.clamp_(0.0, 1.0)
            self.w_rec.clamp_(0.0, 1.0)
            for p in (self.tau_m, self.tau_adp, self.th_tau_m, self.th_tau_adp):
                p.clamp_(min=TAU_MIN)

    def tau_parameters(self) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
        """([tau_adp params], [tau_m params]): the groups with the x5 and x2 learning rates."""
        return [self.tau_adp, self.th_tau_adp], [self.tau_m, self.th_tau_m]

    def dense_weights(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Effective synaptic matrices (differentiable): thalamic (200, N) >= 0 and recurrent (N, N) with
        rows = presynaptic neuron, entry = sign_j * gain_j * w (0 outside the masks)."""
        th = torch.zeros(self.n, N_THALAMUS, dtype=self.w_th.dtype, device=self.w_th.device)
        th = th.index_put((self.th_index[0], self.th_index[1]), self.w_th)
        rec = torch.zeros(self.n, self.n, dtype=self.w_rec.dtype, device=self.w_rec.device)
        rec = rec.index_put((self.rec_index[0], self.rec_index[1]), self.w_rec * self.rec_coef)
        return th.T, rec.T

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        """u0, s0 for thalamus (batch, 200) and cortex (batch, N); official: U(0, 1) from a fixed seed."""
        dev, dt = self.w_rec.device, self.w_rec.dtype
        if self.init_state == "zeros":
            z_th = torch.zeros(batch, N_THALAMUS, device=dev, dtype=dt)
            z = torch.zeros(batch, self.n, device=dev, dtype=dt)
            return {"u_th": z_th, "s_th": z_th.clone(), "u": z, "s": z.clone()}
        g = torch.Generator().manual_seed(self.init_seed)
        out = {
            "u_th": torch.rand(batch, N_THALAMUS, generator=g, dtype=torch.float64),
            "s_th": torch.rand(batch, N_THALAMUS, generator=g, dtype=torch.float64),
            "u": torch.rand(batch, self.n, generator=g, dtype=torch.float64),
            "s": torch.rand(batch, self.n, generator=g, dtype=torch.float64),
        }
        return {k: v.to(device=dev, dtype=dt) for k, v in out.items()}

    def _check_input(self, x_force: torch.Tensor, x_torque: torch.Tensor) -> None:
        for name, x in (("x_force", x_force), ("x_torque", x_torque)):
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
            if x.ndim != 3 or x.shape[-1] != self.input_size or x.shape[0] < 1 or x.shape[1] < 1:
                raise ValueError(
                    f"{name} must have shape (batch, T, {self.input_size}), got {tuple(x.shape)}"
                )
        if x_force.shape != x_torque.shape:
            raise ValueError(
                f"x_force and x_torque must have the same shape, got {tuple(x_force.shape)} "
                f"and {tuple(x_torque.shape)}"
            )

    def forward(
        self, x_force: torch.Tensor, x_torque: torch.Tensor, record: bool = False
    ) -> tuple[torch.Tensor, Recording | None]:
        """Run the network on spike inputs.

        Args:
            x_force, x_torque: (batch, T, 93) spike trains (0/1) of force and torque.
            record: also return every cortical and thalamic spike.

        Returns:
            (o, rec): o (batch, 3) = sum over t >= 1 of softmax(readout_t) (official ``output``); rec a
            :class:`Recording` or None.
        """
        self._check_input(x_force, x_torque)
        self.constrain_()
        x_force = x_force.to(self.w_rec.dtype)
        x_torque = x_torque.to(self.w_rec.dtype)
        batch, T, _ = x_force.shape
        st = self.initial_state(batch)
        u_th, s_th, u, s = st["u_th"], st["s_th"], st["u"], st["s"]
        b_th = torch.full_like(u_th, self.init_b)
        b = torch.full_like(u, self.init_b)
        a_th, r_th = torch.exp(-1.0 / self.th_tau_m), torch.exp(-1.0 / self.th_tau_adp)
        alpha, rho = torch.exp(-1.0 / self.tau_m), torch.exp(-1.0 / self.tau_adp)
        drive = self.barrelloid(torch.cat([self.fc_f(x_force), self.fc_t(x_torque)], dim=-1))  # (B, T, 200)
        th_mat, old_mat, new_mats = self._synapses()
        sl = self.slices
        th_spikes, ro, rec_sp = [], [], []
        # Per-step thalamic product, not one batched (T * B)-row product: batching changes float32 GEMM
        # rounding, which flipped threshold crossings and moved the quick run's deprivation numbers.
        for t in range(T):
            u_th, s_th, b_th = alif_step(drive[:, t], u_th, s_th, b_th, a_th, r_th, self.init_b)
            th_spikes.append(s_th)
            cur = self._mm(th_mat, s_th) + self._mm(old_mat, s)  # thalamus at t, recurrent sources at t-1
            if new_mats is None:  # jacobi
                u, s, b = alif_step(cur, u, s, b, alpha, rho, self.init_b)
            else:
                # sequential: b, theta and every term but the step-t input of sources j < i are common
                b = rho * b + (1 - rho) * s
                theta = self.init_b + BETA_A * b
                u_part = alpha * u + (1 - alpha) * cur - theta * s
                us: list[torch.Tensor] = []
                ss: list[torch.Tensor] = []
                for i in range(N_POP):
                    ui = u_part[:, sl[i]]
                    op = new_mats[i]
                    if op is not None:
                        ui = ui + (1 - alpha[sl[i]]) * self._mm(op, torch.cat(ss, 1))
                    us.append(ui)
                    ss.append(spike_fn(ui - theta[:, sl[i]]))
                u, s = torch.cat(us, 1), torch.cat(ss, 1)
            ro.append(s[:, self.readout_index])
            if record:
                rec_sp.append(s)
        logits = self.fc2_2(self.fc2_1(torch.stack(ro[1:], 0)))  # (T-1, B, 3)
        out = F.softmax(logits, dim=-1).sum(0) if T > 1 else torch.zeros_like(logits.sum(0))
        rec = Recording(torch.stack(rec_sp).detach(), torch.stack(th_spikes).detach()) if record else None
        return out, rec

    # ----------------------------------------------------------------------------------------------
    def _synapses(self) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor | None] | None]:
        """Per-forward synaptic operators, transposed (post x pre): thalamic (N, 200); the recurrent
        synapses that act with step t-1 spikes (N, N); for the sequential order, for each population i the
        synapses from populations j < i, which act with step-t spikes: (n_i, start_i) or None."""
        n = self.n
        vals = self.w_rec * self.rec_coef
        tgt, src = self.rec_index[0], self.rec_index[1]
        pop = torch.as_tensor(self.neuron_population(), device=tgt.device)
        if self.update_order == "jacobi":
            old = torch.ones_like(tgt, dtype=torch.bool)
        else:
            old = pop[src] >= pop[tgt]
        if self.sparse:
            th = _csr(self.th_index[0], self.th_index[1], self.w_th, (n, N_THALAMUS))
            old_m = _csr(tgt[old], src[old], vals[old], (n, n))
        else:
            th = torch.zeros(n, N_THALAMUS, dtype=self.w_th.dtype, device=self.w_th.device)
            th = th.index_put((self.th_index[0], self.th_index[1]), self.w_th)  # (N, 200) post x pre
            old_dense = torch.zeros(n, n, dtype=vals.dtype, device=vals.device)
            old_m = old_dense.index_put((tgt[old], src[old]), vals[old])
        if self.update_order == "jacobi":
            return th, old_m, None
        new: list[torch.Tensor | None] = []
        for i, s in enumerate(self.slices):
            if i == 0:
                new.append(None)
                continue
            sel = (~old) & (pop[tgt] == i)
            if not bool(sel.any()):
                new.append(None)
                continue
            idx = torch.stack([tgt[sel] - s.start, src[sel]])
            shape = (s.stop - s.start, s.start)
            if self.sparse:
                new.append(_csr(idx[0], idx[1], vals[sel], shape))
            else:
                dense = torch.zeros(shape, dtype=vals.dtype, device=vals.device)
                new.append(dense.index_put((idx[0], idx[1]), vals[sel]))
        return th, old_m, new

    @staticmethod
    def _mm(mat: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """(post x pre) operator applied to x (batch, pre) -> (batch, post)."""
        if mat.layout == torch.sparse_csr:
            return (mat @ x.T).T
        return x @ mat.T

    # ----------------------------------------------------------------------------------------------
    def neuron_population(self) -> np.ndarray:
        """(N,) int: the population index (0..12) of every neuron."""
        return np.repeat(np.arange(N_POP), self.sizes)

    def export(self) -> dict[str, np.ndarray | float]:
        """Everything a simulator needs, as float64 numpy: ``th_i, th_j, th_w`` (thalamic synapses, pre/post
        /weight), ``rec_i, rec_j, rec_w`` (recurrent: pre, post, signed gained weight), ``alpha, rho``
        (N,), ``b0``, ``beta_a``."""
        self.constrain_()
        with torch.no_grad():
            d = {
                "th_i": self.th_index[1].cpu().numpy(),
                "th_j": self.th_index[0].cpu().numpy(),
                "th_w": self.w_th.detach().double().cpu().numpy(),
                "rec_i": self.rec_index[1].cpu().numpy(),
                "rec_j": self.rec_index[0].cpu().numpy(),
                "rec_w": (self.w_rec * self.rec_coef).detach().double().cpu().numpy(),
                "alpha": torch.exp(-1.0 / self.tau_m.double()).cpu().numpy(),
                "rho": torch.exp(-1.0 / self.tau_adp.double()).cpu().numpy(),
            }
        return {**d, "b0": self.init_b, "beta_a": BETA_A}


def _csr(rows: torch.Tensor, cols: torch.Tensor, vals: torch.Tensor, shape: tuple[int, int]) -> torch.Tensor:
    """A CSR matrix from entries sorted by (row, column); differentiable in ``vals``. CSR, not COO: the
    CPU product is ~5x faster (0.035 vs 0.173 CPU s per 110 steps at scale 0.1, batch 128;
    benchmarks/bench_step.py) and identical in value."""
    counts = torch.bincount(rows, minlength=shape[0])
    crow = torch.cat([counts.new_zeros(1), counts.cumsum(0)])
    with warnings.catch_warnings():  # torch flags CSR as beta; the product and its gradient are tested
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        return torch.sparse_csr_tensor(crow, cols, vals, shape, check_invariants=False)


def loss_fn(out: torch.Tensor, labels: torch.Tensor, T: int, double_softmax: bool = True) -> torch.Tensor:
    """Official loss CE(o / T, y) (the summed softmax passes through log-softmax again); with
    ``double_softmax=False``, NLL(log(o / T)) instead. out: (batch, 3); labels: (batch,) int64."""
    if double_softmax:
        return F.cross_entropy(out / T, labels)
    return F.nll_loss(torch.log(out / max(T - 1, 1) + 1e-12), labels)


__all__ = ["INIT_STATES", "N_CHANNELS", "UPDATE_ORDERS", "BarrelSNN", "Recording", "loss_fn"]
