"""Baselines: nearest-neighbour recourse (NNR), Wachter et al.'s gradient search, Growing Spheres and ROAR.

Each takes the classifier under recourse at construction and exposes ``recourse(X) -> X_cf`` on (n, d)
features in [0, 1]; NNR is fit on the training data first.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from paperkit.validation import check_bool, check_int, check_number
from torch import Tensor

from genre.classifiers import as_proba, as_torch_proba
from genre.pairs import lp_distances
from genre.recourse import check_features

__all__ = ["NNR", "ROAR", "GrowingSpheres", "Wachter"]


class NNR:
    """Nearest-neighbour recourse (official ``recourse/nnr.py``): the training point labelled y⁺ = 1 at the
    smallest L_p distance.

    Args:
        classifier: h, used only when ``require_valid`` (candidates must also have h(x) > 0.5).
        p: the distance's order (1: L1, the recourse cost).
        require_valid: keep only candidates the classifier accepts (off: the spec's label-only rule).
        threshold: with ``require_valid``, candidates need h(x) > threshold (0.5: accepted; the official
            γ = 0.7 gives GenRe's own target support D⁺).
    """

    def __init__(
        self, classifier: Any = None, p: float = 1.0, require_valid: bool = False, threshold: float = 0.5
    ) -> None:
        self.classifier = classifier
        self.p = check_number(p, "p", low=1.0)
        self.require_valid = check_bool(require_valid, "require_valid")
        self.threshold = check_number(threshold, "threshold", low=0.0, high=1.0, high_open=True)
        if require_valid and classifier is None:
            raise ValueError("require_valid=True needs a classifier")

    def fit(self, X: Any, y: Any) -> NNR:
        X = check_features(X)
        y = np.asarray(y)
        if y.shape != (len(X),):
            raise ValueError(f"y must have shape ({len(X)},), got {y.shape}")
        keep = y == 1
        if self.require_valid:
            keep &= as_proba(self.classifier)(X) > self.threshold
        if not keep.any():
            rule = f"labelled 1 with h > {self.threshold:g}" if self.require_valid else "labelled 1"
            raise ValueError(f"no positives to pair with: no training point is {rule}")
        self.candidates_ = X[keep]
        self.n_features_in_ = X.shape[1]
        return self

    def recourse(self, X: Any) -> np.ndarray:
        """(n, d): for each row the nearest candidate (ties: the first in training order)."""
        if not hasattr(self, "candidates_"):
            raise RuntimeError("this NNR is not fitted yet; call fit(X, y) first")
        X = check_features(X, self.n_features_in_)
        out = np.empty_like(X)
        for s in range(0, len(X), 256):
            dist = lp_distances(X[s : s + 256], self.candidates_, self.p)
            out[s : s + 256] = self.candidates_[dist.argmin(axis=1)]
        return out


def _to_tensor(X: np.ndarray, device: str) -> Tensor:
    return torch.as_tensor(X, dtype=torch.float32, device=device)


class Wachter:
    """Wachter et al. (2017) counterfactual search, batched over individuals (CARLA's ``wachter``):

        minimise  BCE(h(x'), 1) + λ ‖x' − x‖_p   over x' ∈ [0, 1]^d,

    stopping an individual as soon as h(x') > 0.5; after each round of ``n_iter`` steps without success
    λ ← max(λ − λ_step, 0) (CARLA: λ₀ = 0.01, step 0.05, Adam with AMSGrad, lr 0.01, 1 000 steps).

    Args:
        classifier: a differentiable torch classifier (``nn.Module`` or :class:`MLPClassifier`).
        lam, lam_step, rounds: cost weight, its decrease per round and the number of rounds.
        lr, n_iter: step size and steps a round. norm: the cost's p (1 or 2).
        optimizer: ``"adam"`` (AMSGrad, as CARLA) or ``"sgd"``. clamp: keep x' in [0, 1].
        device: where the search runs.
    """

    def __init__(
        self,
        classifier: Any,
        lam: float = 0.01,
        lam_step: float = 0.05,
        rounds: int = 3,
        lr: float = 0.01,
        n_iter: int = 1000,
        norm: int = 1,
        optimizer: str = "adam",
        clamp: bool = True,
        device: str = "cpu",
    ) -> None:
        lam = check_number(lam, "lam", low=0.0)
        lam_step = check_number(lam_step, "lam_step", low=0.0)
        rounds = check_int(rounds, "rounds", low=1)
        lr = check_number(lr, "lr", low=0.0, low_open=True)
        n_iter = check_int(n_iter, "n_iter", low=1)
        if optimizer not in ("adam", "sgd"):
            raise ValueError(f"optimizer must be 'adam' or 'sgd', got {optimizer!r}")
        if norm not in (1, 2):
            raise ValueError(f"norm must be 1 or 2, got {norm!r}")
        self.h = as_torch_proba(classifier)
        self.lam, self.lam_step, self.rounds = lam, lam_step, rounds
        self.lr, self.n_iter, self.norm = lr, n_iter, norm
        self.optimizer, self.clamp, self.device = optimizer, clamp, device

    def _objective(self, xn: Tensor, x0: Tensor, lam: float) -> Tensor:
        p = self.h(xn).clamp(1e-7, 1 - 1e-7)
        diff = xn - x0
        cost = diff.abs().sum(1) if self.norm == 1 else (diff.pow(2).sum(1) + 1e-12).sqrt()
        return -torch.log(p) + lam * cost

    def _valid(self, xn: Tensor) -> Tensor:
        return self.h(xn) > 0.5

    def recourse(self, X: Any) -> np.ndarray:
        """(n, d) counterfactuals; an individual never made valid keeps its last iterate."""
        X = check_features(X)
        x0 = _to_tensor(X, self.device)
        xn = x0.clone().requires_grad_(True)
        opt: torch.optim.Optimizer = (
            torch.optim.Adam([xn], lr=self.lr, amsgrad=True)
            if self.optimizer == "adam"
            else torch.optim.SGD([xn], lr=self.lr)
        )
        lam = self.lam
        with torch.no_grad():
            active = ~self._valid(xn)
        for _ in range(self.rounds):
            for _ in range(self.n_iter):
                if not bool(active.any()):
                    break
                frozen = xn.detach().clone()
                opt.zero_grad()
                self._objective(xn, x0, lam).sum().backward()
                opt.step()
                with torch.no_grad():
                    if self.clamp:
                        xn.clamp_(0.0, 1.0)
                    xn[~active] = frozen[~active]
                    active &= ~self._valid(xn)
            if not bool(active.any()):
                break
            lam = max(lam - self.lam_step, 0.0)
        return xn.detach().double().cpu().numpy()


class ROAR(Wachter):
    """ROAR (Upadhyay et al., 2021): Wachter's search against the worst-case shift of a local linear model.

    The classifier is linearised at each x in logit space, logit(x') ≈ wᵀx' + b with w = ∇logit(x) (CARLA
    uses LIME coefficients here); an adversary shifts (w, b) within an L∞ ball of radius δ, whose worst case
    lowers the logit by δ(‖x'‖₁ + 1). The objective is BCE(σ(wᵀx' + b − δ(‖x'‖₁ + 1)), 1) + λ‖x' − x‖₁, and
    an individual stops when the worst-case linear model accepts it.

    Args: as :class:`Wachter`, plus ``delta`` (the spec's config: 0.01); CARLA's λ₀ = 0.1, step 0.25.
    """

    def __init__(
        self,
        classifier: Any,
        delta: float = 0.01,
        lam: float = 0.1,
        lam_step: float = 0.25,
        rounds: int = 3,
        lr: float = 0.01,
        n_iter: int = 1000,
        device: str = "cpu",
    ) -> None:
        super().__init__(classifier, lam, lam_step, rounds, lr, n_iter, 1, "adam", True, device)
        self.delta = check_number(delta, "delta", low=0.0)

    def _linearise(self, x0: Tensor) -> tuple[Tensor, Tensor]:
        x = x0.clone().requires_grad_(True)
        p = self.h(x).clamp(1e-7, 1 - 1e-7)
        logit = torch.log(p) - torch.log1p(-p)
        (w,) = torch.autograd.grad(logit.sum(), x)
        b = logit.detach() - (w * x0).sum(1)
        return w, b

    def _worst_logit(self, xn: Tensor) -> Tensor:
        return (self.w_ * xn).sum(1) + self.b_ - self.delta * (xn.abs().sum(1) + 1.0)

    def _objective(self, xn: Tensor, x0: Tensor, lam: float) -> Tensor:
        return torch.nn.functional.softplus(-self._worst_logit(xn)) + lam * (xn - x0).abs().sum(1)

    def _valid(self, xn: Tensor) -> Tensor:
        return self._worst_logit(xn) > 0

    def recourse(self, X: Any) -> np.ndarray:
        X = check_features(X)
        self.w_, self.b_ = self._linearise(_to_tensor(X, self.device))
        return super().recourse(X)


class GrowingSpheres:
    """Growing Spheres (Laugel et al., 2018; CARLA defaults): sample ``n_samples`` points uniformly in L2
    shells of width ``step`` growing around x until one is accepted (h > 0.5), take the closest accepted
    one, then sparsify: reset changed features to x's value, smallest change first, while still accepted.

    Args:
        classifier: h (any classifier :func:`as_proba` accepts). n_samples, step, max_iter: the search.
        clip: keep candidates in [0, 1]. imm_mask: (d,) bool features never changed. seed: the draws.
    """

    def __init__(
        self,
        classifier: Any,
        n_samples: int = 1000,
        step: float = 0.2,
        max_iter: int = 1000,
        clip: bool = True,
        imm_mask: Any = None,
        seed: int = 0,
    ) -> None:
        self.h = as_proba(classifier)
        self.n_samples = check_int(n_samples, "n_samples", low=1)
        self.step = check_number(step, "step", low=0.0, low_open=True)
        self.max_iter = check_int(max_iter, "max_iter", low=1)
        self.clip, self.imm_mask, self.seed = clip, imm_mask, check_int(seed, "seed", low=0)

    def _one(self, x: np.ndarray, rng: np.random.Generator, imm: np.ndarray) -> np.ndarray:
        d = len(x)
        low, high = 0.0, self.step
        for _ in range(self.max_iter):
            u = rng.standard_normal((self.n_samples, d))
            u /= np.linalg.norm(u, axis=1, keepdims=True)
            r = (rng.uniform(low**d, high**d, size=(self.n_samples, 1))) ** (1.0 / d)
            cand = x + r * u
            cand[:, imm] = x[imm]
            if self.clip:
                cand = np.clip(cand, 0.0, 1.0)
            ok = self.h(cand) > 0.5
            if ok.any():
                c = cand[ok]
                best = c[np.linalg.norm(c - x, axis=1).argmin()].copy()
                for j in np.argsort(np.abs(best - x), kind="stable"):
                    if best[j] == x[j]:
                        continue
                    trial = best.copy()
                    trial[j] = x[j]
                    if self.h(trial[None])[0] > 0.5:
                        best = trial
                return best
            low, high = high, high + self.step
        return x.copy()

    def recourse(self, X: Any) -> np.ndarray:
        """(n, d) counterfactuals (x itself where the search found nothing within max_iter shells)."""
        X = check_features(X)
        imm = np.zeros(X.shape[1], bool) if self.imm_mask is None else np.asarray(self.imm_mask)
        if imm.dtype != bool or imm.shape != (X.shape[1],):
            raise ValueError(
                f"imm_mask must be a bool array of shape ({X.shape[1]},), got {imm.dtype} {imm.shape}"
            )
        rng = np.random.default_rng(self.seed)
        return np.stack([self._one(x, rng, imm) for x in X]) if len(X) else X.copy()
