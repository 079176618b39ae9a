"""Anatomy of the superficial barrel column: 13 populations, thalamic and recurrent connection probabilities.

The numbers are those of the official code's ``readPops()`` and ``data/*.npy`` (read from
fun0515/RSNN_bfd, derived from the NetPyNE model of Huang, Zeldenrust & Celikel, Neuroinformatics 2022):
population sizes, excitatory/inhibitory identity, and p[src -> tgt] = #synapses / (N_pre * N_post).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from paperkit.validation import check_number


@dataclass(frozen=True)
class Population:
    """One neuronal subtype: ``name``, ``layer`` ("L4" or "L2/3"), ``kind`` ("E"/"I"), ``size`` (neurons)."""

    name: str
    layer: str
    kind: str
    size: int

    @property
    def sign(self) -> float:
        """+1 for excitatory, -1 for inhibitory (Dale's law: the sign of every outgoing synapse)."""
        return 1.0 if self.kind == "E" else -1.0


POPULATIONS: tuple[Population, ...] = (
    Population("Pyr_SP", "L4", "E", 440),
    Population("Pyr_SS", "L4", "E", 934),
    Population("Inh_FS", "L4", "I", 94),
    Population("Inh_RSNP", "L4", "I", 93),
    Population("Pyr", "L2/3", "E", 2232),
    Population("Inh_FSBS", "L2/3", "I", 106),
    Population("Inh_FSCH", "L2/3", "I", 4),
    Population("Inh_BSPV", "L2/3", "I", 55),
    Population("Inh_Mar", "L2/3", "I", 64),
    Population("Inh_DBC", "L2/3", "I", 64),
    Population("Inh_Bip", "L2/3", "I", 34),
    Population("Inh_SBC", "L2/3", "I", 60),
    Population("Inh_NG", "L2/3", "I", 38),
)
N_POP = len(POPULATIONS)
FULL_SIZES: tuple[int, ...] = tuple(p.size for p in POPULATIONS)
READOUT_POPS: tuple[int, ...] = (0, 1, 4)  # the excitatory populations read out (official fc2_1 input)
N_THALAMUS = 200  # barrelloid ALIF neurons (official: Linear(200, 200) then 200 neurons)

# p[thalamus -> target], targets 0..12 (official data/Exc_ThtoAll_prob.npy, 4 decimals).
P_THAL = np.array(
    [0.0794, 0.0841, 0.0994, 0.0890, 0.0007, 0.0008, 0.0, 0.0020, 0.0, 0.0010, 0.0005, 0.0002, 0.0005]
)

_ROWS = {  # source -> p to targets 0..12 (official Exc_/Inh_AlltoAll_prob.npy, rows = source)
    0: [0.0542, 0.0387, 0.0665, 0.0605, 0.1382, 0.2384, 0.2574, 0.2045, 0, 0.1986, 0.2152, 0.2249, 0.0941],
    1: [0.0806, 0.0379, 0.1098, 0.3426, 0.1164, 0.1680, 0.1817, 0.1347, 0, 0.1379, 0.1360, 0.1339, 0.0931],
    4: [0, 0, 0, 0, 0.0610, 0.2116, 0.2028, 0.0678, 0.1941, 0.0629, 0.0578, 0.0586, 0.1780],
    2: [0.3829, 0.0286, 0.3388, 0.1353, 0.0121, 0.0074, 0.0027, 0, 0, 0.0060, 0.0069, 0.0027, 0.0056],
    3: [0.3597, 0.0186, 0.1557, 0.2651, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    5: [0, 0, 0, 0, 0.2967, 0.2642, 0.2429, 0, 0, 0.1165, 0.1168, 0.0871, 0.1775],
    6: [0, 0, 0, 0, 0.2577, 0.1863, 0.2500, 0, 0, 0.1328, 0.1029, 0.0458, 0.1184],
    7: [0, 0, 0, 0, 0.1063, 0.0722, 0.0682, 0.1038, 0.1051, 0.1102, 0, 0.0842, 0.0732],
    8: [0, 0, 0, 0, 0.2062, 0.2314, 0.1680, 0.2276, 0, 0.2080, 0.2192, 0.2357, 0.1587],
    9: [0, 0, 0, 0, 0.1396, 0.1352, 0.1406, 0.0861, 0.2349, 0.1172, 0.1222, 0.1313, 0.1225],
    10: [0, 0, 0, 0, 0.0380, 0.0988, 0.0662, 0, 0.2348, 0.1153, 0.1142, 0.1333, 0.1184],
    11: [0, 0, 0, 0, 0.0457, 0.0671, 0.0333, 0.1539, 0.1565, 0.1583, 0.1554, 0.0600, 0.1610],
    12: [0, 0, 0, 0, 0.0837, 0.0951, 0.0724, 0.0718, 0.0847, 0.0942, 0.1703, 0.1145, 0.1593],
}
P_REC = np.array([_ROWS[i] for i in range(N_POP)], dtype=np.float64)  # (13, 13), rows = source
SIGNS = np.array([p.sign for p in POPULATIONS])  # (13,) +1 E / -1 I


def check_scale(scale: float) -> float:
    """Validate ``scale`` in (0, 1] and return it as a float."""
    return check_number(scale, "scale", low=0.0, high=1.0, low_open=True)  # 1 = the 4,218-neuron column


def population_sizes(scale: float = 1.0) -> tuple[int, ...]:
    """Population sizes at ``scale``: round(size * scale), at least 1 (FSCH has 4 neurons at scale 1)."""
    s = check_scale(scale)
    return tuple(max(1, round(n * s)) for n in FULL_SIZES)


def population_slices(sizes: tuple[int, ...]) -> list[slice]:
    """Index ranges of the populations in the concatenated neuron vector (population order 0..12)."""
    edges = np.concatenate([[0], np.cumsum(sizes)])
    return [slice(int(edges[i]), int(edges[i + 1])) for i in range(len(sizes))]


def build_masks(
    scale: float = 1.0, seed: int = 515
) -> tuple[dict[int, np.ndarray], dict[tuple[int, int], np.ndarray]]:
    """Fixed Bernoulli(p) connectivity masks, drawn once (official ``SparseLinear2.apply_mask``).

    Returns:
        (thal, rec): ``thal[i]`` is a bool (200, n_i) mask thalamus -> population i for the 11 targets with
        p > 0; ``rec[(j, i)]`` is a bool (n_j, n_i) mask population j -> population i for the 113 pairs
        with p > 0. Rows are presynaptic, columns postsynaptic.
    """
    sizes = population_sizes(scale)
    rng = np.random.default_rng(seed)
    thal = {i: rng.random((N_THALAMUS, sizes[i])) < P_THAL[i] for i in range(N_POP) if P_THAL[i] > 0}
    rec = {
        (j, i): rng.random((sizes[j], sizes[i])) < P_REC[j, i]
        for i in range(N_POP)
        for j in range(N_POP)
        if P_REC[j, i] > 0
    }
    return thal, rec


__all__ = [
    "FULL_SIZES",
    "N_POP",
    "N_THALAMUS",
    "POPULATIONS",
    "P_REC",
    "P_THAL",
    "READOUT_POPS",
    "SIGNS",
    "Population",
    "build_masks",
    "check_scale",
    "population_sizes",
    "population_slices",
]
