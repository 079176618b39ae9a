"""Scoring time vs rsatoolbox on 1,000 stimuli: RDMs of a 100-d layer and 10 subjects, Spearman RSA.

Both sides compute the same numbers (checked here): correlation-distance RDMs of the model layer
``(1000, 100)`` and of 10 subjects ``(1000, 200)``, then the Spearman correlation of the model RDM's upper
triangle (499,500 entries) with each subject's. Process CPU time, after warm-up, repetitions interleaved,
one thread. Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_rsa.py`` (needs the ``bench`` group).
"""

from __future__ import annotations

import time

import numpy as np
import rsatoolbox
from video_brain_rsa.dissimilarity import rdm, upper
from video_brain_rsa.rsa import permutation_test, rsa_score


def ours(model: np.ndarray, subjects: np.ndarray) -> np.ndarray:
    brain = np.stack([rdm(s, pca=None) for s in subjects])
    return rsa_score(rdm(model, pca=None), brain).per_subject


def theirs(model: np.ndarray, subjects: np.ndarray) -> np.ndarray:
    m = rsatoolbox.rdm.calc_rdm(rsatoolbox.data.Dataset(model), method="correlation")
    b = rsatoolbox.rdm.calc_rdm([rsatoolbox.data.Dataset(s) for s in subjects], method="correlation")
    return rsatoolbox.rdm.compare(m, b, method="spearman")[0]


def main() -> None:
    rng = np.random.default_rng(0)
    latent = rng.standard_normal((1000, 20))
    model = latent @ rng.standard_normal((20, 100)) + rng.standard_normal((1000, 100))
    subjects = np.stack([latent @ rng.standard_normal((20, 200)) + 3 * rng.standard_normal((1000, 200))
                         for _ in range(10)])  # fmt: skip
    a, b = ours(model, subjects), theirs(model, subjects)  # warm-up, and the same numbers
    print(f"max |ours - rsatoolbox| over subjects: {np.abs(a - b).max():.2e}")
    fns = {"ours": ours, "rsatoolbox": theirs}
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(3):
        for k, f in fns.items():
            t = time.process_time()
            f(model, subjects)
            times[k].append(time.process_time() - t)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"1000 stimuli, 10 subjects: ours {med['ours']:.2f} s, rsatoolbox {med['rsatoolbox']:.2f} s "
          f"({med['rsatoolbox'] / med['ours']:.1f}x)")  # fmt: skip
    d = rdm(model, pca=None)
    brain = np.stack([rdm(s, pca=None) for s in subjects[:3]])
    t = time.process_time()
    permutation_test(d, brain, n_perm=100, seed=0)
    per = (time.process_time() - t) / 100
    print(
        f"permutation null: {1e3 * per:.1f} ms per permutation at 1000 stimuli (vectorised gathers); "
        f"upper triangle {upper(d).size} entries"
    )


if __name__ == "__main__":
    main()
