"""GenRe as a scikit-learn-style estimator: ``fit`` synthesises recourse pairs and trains the pair model,
``recourse`` forward-samples k candidates per individual and keeps the one the classifier likes best.

Official code: ``scripts/train_bpm.py`` (training), ``recourse/genre.py`` (inference).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from paperkit.validation import check_int, check_number

from genre.classifiers import as_proba
from genre.models import PairTransformer
from genre.pairs import PairSampler

__all__ = ["ENCODER_LABELS", "GenRe", "check_features"]

ENCODER_LABELS = ("dataset", "target", "none")


def check_features(X: Any, n_features: int | None = None, name: str = "X") -> np.ndarray:
    """Validate a feature matrix: 2-D (n, d) finite floats, d = ``n_features`` when given."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array of shape (n, d), got {type(X).__name__}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n, d), got shape {arr.shape}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fit with {n_features}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _mask(mask: Any, d: int, name: str) -> np.ndarray:
    if mask is None:
        return np.zeros(d, dtype=bool)
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"{name} must be a boolean array, got dtype {m.dtype}")
    if m.shape != (d,):
        raise ValueError(f"{name} must have one entry per feature ({d}), got shape {m.shape}")
    return m


class GenRe:
    """Generative recourse: R_θ(x⁺ | x⁻) trained on synthesised cost-weighted pairs, sampled best-of-k.

    Defaults are the official ones (``train_bpm.py``, ``recourse/genre.py``, the sampler notebook); the
    architecture and epochs are size knobs (``exp1_config.yaml`` lists much smaller models).

    Args:
        classifier: the deployed classifier h (callable on numpy, ``torch.nn.Module`` or scikit-learn
            estimator with ``predict_proba``), returning P(y = 1 | x).
        lam: λ, the cost weight in the pair weights exp(−λ‖x⁻ − x⁺‖₁) (notebook 5.0).
        gamma: threshold γ defining D⁻ = {h ≤ γ} and D⁺ = {h > γ, y = 1} (official 0.7).
        top_k: partners kept per source (official 1 000; fewer positives means all of them).
        p: the cost norm's order (official ``P: 1``).
        n_bins, emb, heads, enc_layers, dec_layers, ff, dropout: :class:`PairTransformer`.
        lr, epochs, batch_size: Adam training (official 1e-4, 2 000, 2 048).
        eval_every: epochs between validation losses (official 10); the lowest-validation state is kept.
        val_frac: fraction of D⁻ and of D⁺ held out for validation pairs (official 10 %).
        k: samples per individual at inference, best by h (official ``best_k`` = 10).
        inv_temp: multiplies the logits when sampling (official ``temp`` = 10; an *inverse* temperature).
        sigma: noise added to sampled bin values (notebook 0).
        bin_centres: sample bin centres instead of the official left edges.
        encoder_label: the encoder's label token. ``"dataset"`` (official): the source's data-set label
            in training, y⁺ = 1 at inference; ``"target"``: 1 in both; ``"none"``: a constant 0 in both.
        keep_favourable: return inputs the classifier already accepts (h ≥ 0.5) unchanged.
        cat_mask: (d,) bool categorical features (rounded after sampling). imm_mask: (d,) bool immutable
            features (enforced through the training pairs only, as the official code).
        seed: pair draws, splits, initialisation, dropout and sampling (official 42).
        device: where the pair model trains and samples.

    Attributes (after ``fit``): ``model_`` (:class:`PairTransformer`), ``n_features_in_``, ``n_neg_`` and
    ``n_pos_`` (|D⁻|, |D⁺|), ``history_`` (``{"epoch", "train", "val"}`` lists), ``best_epoch_``,
    ``cat_mask_``, ``imm_mask_``.
    """

    def __init__(
        self,
        classifier: Any,
        *,
        lam: float = 5.0,
        gamma: float = 0.7,
        top_k: int = 1000,
        p: float = 1.0,
        n_bins: int = 50,
        emb: int = 32,
        heads: int = 8,
        enc_layers: int = 16,
        dec_layers: int = 16,
        ff: int = 32,
        dropout: float = 0.1,
        lr: float = 1e-4,
        epochs: int = 2000,
        batch_size: int = 2048,
        eval_every: int = 10,
        val_frac: float = 0.1,
        k: int = 10,
        inv_temp: float = 10.0,
        sigma: float = 0.0,
        bin_centres: bool = False,
        encoder_label: str = "dataset",
        keep_favourable: bool = True,
        cat_mask: Any = None,
        imm_mask: Any = None,
        seed: int = 42,
        device: str = "cpu",
    ) -> None:
        self.classifier = classifier
        self.lam = lam
        self.gamma = gamma
        self.top_k = top_k
        self.p = p
        self.n_bins = n_bins
        self.emb = emb
        self.heads = heads
        self.enc_layers = enc_layers
        self.dec_layers = dec_layers
        self.ff = ff
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.batch_size = batch_size
        self.eval_every = eval_every
        self.val_frac = val_frac
        self.k = k
        self.inv_temp = inv_temp
        self.sigma = sigma
        self.bin_centres = bin_centres
        self.encoder_label = encoder_label
        self.keep_favourable = keep_favourable
        self.cat_mask = cat_mask
        self.imm_mask = imm_mask
        self.seed = seed
        self.device = device

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> None:
        if self.encoder_label not in ENCODER_LABELS:
            raise ValueError(f"encoder_label must be one of {ENCODER_LABELS}, got {self.encoder_label!r}")
        check_number(self.lam, "lam", low=0.0)
        check_number(self.gamma, "gamma", low=0.0, high=1.0, high_open=True)
        check_number(self.p, "p", low=1.0)
        for name in ("top_k", "epochs", "batch_size", "eval_every", "k", "n_bins", "emb", "heads", "ff"):
            check_int(getattr(self, name), name, low=1)
        for name in ("enc_layers", "dec_layers"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.seed, "seed", low=0)
        check_number(self.dropout, "dropout", low=0.0, high=1.0, high_open=True)
        check_number(self.lr, "lr", low=0.0, low_open=True)
        check_number(self.val_frac, "val_frac", low=0.0, high=1.0, high_open=True)
        check_number(self.inv_temp, "inv_temp (it multiplies the logits)", low=0.0, low_open=True)
        check_number(self.sigma, "sigma", low=0.0)
        for name in ("bin_centres", "keep_favourable"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, got {type(getattr(self, name)).__name__}")

    def _encoder_tokens(self, y: np.ndarray, training: bool) -> np.ndarray:
        if self.encoder_label == "dataset":
            return y.astype(np.float64) if training else np.ones(len(y))
        if self.encoder_label == "target":
            return np.ones(len(y))
        return np.zeros(len(y))

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> GenRe:
        """Synthesise pairs from the training data and train the pair model.

        Args:
            X: (n, d) features min-max scaled to [0, 1] (the bins cover [0, 1]).
            y: (n,) labels in {0, 1} (1 is the favourable outcome).

        Raises:
            ValueError: bad shapes, NaNs, features outside [0, 1], masks of the wrong length, or no
                positives to pair with (h(x) > γ with y = 1 for no training point).
        """
        self._check_params()
        X, y = _check_training_data(X, y)
        d = X.shape[1]
        cat = _mask(self.cat_mask, d, "cat_mask")
        imm = _mask(self.imm_mask, d, "imm_mask")
        h = as_proba(self.classifier)(X)
        neg = h <= self.gamma
        pos = (h > self.gamma) & (y == 1)
        if not pos.any():
            raise ValueError(
                f"no positives to pair with: the classifier gives h(x) > gamma = {self.gamma} to no "
                "training point labelled 1 (it never predicts the favourable class confidently)"
            )
        if not neg.any():
            raise ValueError(f"no negatives: the classifier gives h(x) > gamma = {self.gamma} to every point")
        # One generator for the splits and every epoch's partner draws, in that order.
        rng = np.random.default_rng(self.seed)
        train, val = self._pair_samplers(X, self._encoder_tokens(y, training=True), neg, pos, imm, rng)
        model, history, best_epoch = self._train_pair_model(d, train, val, rng)
        model.eval()
        self.model_ = model
        self.n_features_in_ = d
        self.cat_mask_ = cat
        self.imm_mask_ = imm
        self.n_neg_ = int(neg.sum())
        self.n_pos_ = int(pos.sum())
        self.history_ = history
        self.best_epoch_ = best_epoch
        return self

    def _pair_samplers(
        self,
        X: np.ndarray,
        y_enc: np.ndarray,
        neg: np.ndarray,
        pos: np.ndarray,
        imm: np.ndarray,
        rng: np.random.Generator,
    ) -> tuple[PairSampler, PairSampler | None]:
        """The training pairs and (when both sides have validation points) the validation pairs:
        negatives and positives are each split by ``val_frac``, negatives first."""

        def split(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            idx = rng.permutation(idx)
            n_val = int(len(idx) * self.val_frac)
            return idx[n_val:], idx[:n_val]

        neg_tr, neg_va = split(np.flatnonzero(neg))
        pos_tr, pos_va = split(np.flatnonzero(pos))
        train = PairSampler(X[neg_tr], y_enc[neg_tr], X[pos_tr], self.lam, self.top_k, self.p, imm)
        if len(train) == 0:
            raise ValueError("no negative shares its immutable features with any positive: no pairs")
        val = None
        if len(neg_va) and len(pos_va):
            val = PairSampler(X[neg_va], y_enc[neg_va], X[pos_va], self.lam, self.top_k, self.p, imm)
            if len(val) == 0:
                val = None
        return train, val

    def _train_pair_model(
        self, d: int, train: PairSampler, val: PairSampler | None, rng: np.random.Generator
    ) -> tuple[PairTransformer, dict[str, list[float]], int]:
        """Adam on the pair likelihood, one fresh partner per source each epoch; keeps the weights of the
        best validation loss (checked every ``eval_every`` epochs). Returns (model, history, best epoch)."""
        dev = torch.device(self.device)
        fork = (
            [dev.index if dev.index is not None else torch.cuda.current_device()]
            if dev.type == "cuda"
            else []
        )
        with torch.random.fork_rng(devices=fork):
            torch.manual_seed(self.seed)
            model = PairTransformer(
                d,
                self.n_bins,
                self.emb,
                self.heads,
                self.enc_layers,
                self.dec_layers,
                self.ff,
                self.dropout,
                dev,
            )
            opt = torch.optim.Adam(model.parameters(), lr=self.lr)
            history: dict[str, list[float]] = {"epoch": [], "train": [], "val": []}
            best, best_state, best_epoch = math.inf, None, -1
            draw_train = _pair_drawer(train, dev, rng)
            draw_val = _pair_drawer(val, dev, rng) if val is not None else None
            for epoch in range(self.epochs):
                model.train()
                xn, yn, xp, yp = draw_train()
                total = 0.0
                for s in range(0, len(xn), self.batch_size):
                    sl = slice(s, s + self.batch_size)
                    loss = model.loss(xn[sl], yn[sl], xp[sl], yp[sl]).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    total += float(loss.detach())
                history["train"].append(total / math.ceil(len(xn) / self.batch_size))
                if draw_val is not None and epoch % self.eval_every == 0:
                    model.eval()
                    with torch.no_grad():
                        vl = float(model.loss(*draw_val()).mean())
                    history["epoch"].append(epoch)
                    history["val"].append(vl)
                    if vl < best:
                        best, best_epoch = vl, epoch
                        best_state = copy.deepcopy(model.state_dict())
            if best_state is not None:
                model.load_state_dict(best_state)
            else:
                best_epoch = self.epochs - 1
        return model, history, best_epoch

    # ------------------------------------------------------------------ inference
    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise RuntimeError("this GenRe is not fitted yet; call fit(X, y) first")

    def sample(self, X: Any, n_samples: int = 1, seed: int = 0) -> np.ndarray:
        """Draw samples x⁺ ~ R_θ(· | x⁻) (official sampler: inverse temperature, σ, categorical rounding).

        Args:
            X: (n, d) individuals (clipped to [0, 1]). n_samples: draws per individual. seed: the draws.

        Returns:
            (n, n_samples, d) float64.
        """
        self._check_fitted()
        X = np.clip(check_features(X, self.n_features_in_), 0.0, 1.0)
        n_samples = check_int(n_samples, "n_samples", low=1)
        seed = check_int(seed, "seed", low=0)
        dev = next(self.model_.parameters()).device
        gen = torch.Generator(device=dev).manual_seed(seed)
        n = len(X)
        xt = torch.as_tensor(X, dtype=torch.float32, device=dev).repeat(n_samples, 1)
        y_enc = torch.as_tensor(self._encoder_tokens(np.zeros(n * n_samples), training=False), device=dev)
        out = self.model_.sample(
            xt,
            y_enc.float(),
            1.0,
            inv_temp=self.inv_temp,
            sigma=self.sigma,
            generator=gen,
            bin_centres=self.bin_centres,
        )
        S = out.double().cpu().numpy().reshape(n_samples, n, -1).transpose(1, 0, 2)
        S[..., self.cat_mask_] = np.round(S[..., self.cat_mask_])
        return S

    def recourse(self, X: Any, seed: int = 0) -> np.ndarray:
        """Recourse x⁺ for each individual: the best of k samples by h (official ``GenRe.__call__``).

        Args:
            X: (n, d) individuals, scaled like the training data. seed: the draws.

        Returns:
            (n, d) float64 recourse. Rows with h(x) ≥ 0.5 are returned unchanged when
            ``keep_favourable`` (they need no recourse).
        """
        self._check_fitted()
        X = check_features(X, self.n_features_in_)
        S = self.sample(X, self.k, seed=seed)  # (n, k, d)
        n, k, d = S.shape
        scores = as_proba(self.classifier)(S.reshape(n * k, d)).reshape(n, k)
        best = S[np.arange(n), scores.argmax(axis=1)]
        if self.keep_favourable:
            ok = as_proba(self.classifier)(X) >= 0.5
            best[ok] = X[ok]
        return best


def _check_training_data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = check_features(X)
    y = np.asarray(y)
    if y.shape != (len(X),):
        raise ValueError(f"y must have shape ({len(X)},), got {y.shape}")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("y must hold labels 0 and 1 only (1 = favourable)")
    if X.min() < -1e-6 or X.max() > 1 + 1e-6:
        raise ValueError(
            f"X must be min-max scaled to [0, 1] (the pair model's bins cover [0, 1]); got values in "
            f"[{X.min():.3g}, {X.max():.3g}]"
        )
    return X, y


def _pair_drawer(
    s: PairSampler, dev: torch.device, rng: np.random.Generator
) -> Callable[[], tuple[torch.Tensor, ...]]:
    """Every kept source with one freshly drawn partner (``PairSampler.sample``, on ``dev``).

    The sources, their labels and the candidates are moved to the device once, not every epoch.
    """
    xn = torch.as_tensor(s.X_neg, dtype=torch.float32, device=dev)
    yn = torch.as_tensor(s.y_neg, dtype=torch.float32, device=dev)
    X_pos = torch.as_tensor(s.X_pos, dtype=torch.float32, device=dev)
    yp = torch.ones(len(s), device=dev)

    def draw() -> tuple[torch.Tensor, ...]:
        return xn, yn, X_pos[torch.as_tensor(s.sample_index(rng), device=dev)], yp

    return draw
