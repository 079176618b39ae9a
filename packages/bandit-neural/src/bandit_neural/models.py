"""Utility estimators trained on feedback: the neural network of the paper and the linear baseline.

Both expose the same two operations the bandit rules need:

- ``features(X) -> (h, φ)``: the estimated utilities h(x_k) (K,) and the features φ(x_k) (K, p) whose
  Gram matrix gives the confidence widths. Neural: φ = g(x; θ_t)/√m (the paper's (1/m)-scaled gradient
  features). Linear: φ = x.
- ``fit(x1, x2, y)``: fit to preferences y_s = 1[x_{s,1} ≻ x_{s,2}] under the BTL link (``x2`` given) or to
  binary rewards y_s ~ Bernoulli(μ(f(x_s))) (``x2=None``), μ the logistic function.

Neural loss (paper's Eq. for θ_t, best reading):
    L(θ) = Σ_s BCE(h(x_{s,1}; θ) − h(x_{s,2}; θ), y_s) + (m·reg/2) ‖θ − θ_0‖²,
minimised approximately by ``train_steps`` Adam steps, warm-started from the previous θ (or from θ_0).
In the linearised (NTK) picture, with φ = g/√m and w = √m(θ − θ_0), the regulariser is (reg/2)‖w‖²,
which is why it carries the factor m that the (1/m)-scaled Gram matrix needs.

Linear loss: Σ_s BCE((x_{s,1} − x_{s,2})ᵀw, y_s) + (λ/2)‖w‖², minimised exactly by damped Newton.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from paperkit import torch_threads  # tiny per-round ops: extra threads only add synchronisation
from paperkit.validation import check_int, check_positive

from bandit_neural.nets import (
    MLP,
    backprop_weighted_sum,
    forward_activations,
    torch_device,
    values_and_grads,
)


def preference_loss(h1: torch.Tensor, h2: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Negative BTL log-likelihood Σ_s −[y log μ(h1 − h2) + (1 − y) log(1 − μ(h1 − h2))].

    h1, h2, y: (n,). Computed from logits (stable for any utility range; no clipping needed).
    """
    return F.binary_cross_entropy_with_logits(h1 - h2, y, reduction="sum")


def binary_loss(h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Negative Bernoulli log-likelihood Σ_s −[y log μ(h) + (1 − y) log(1 − μ(h))]; h, y: (n,)."""
    return F.binary_cross_entropy_with_logits(h, y, reduction="sum")


class NeuralUtility:
    """h(x; θ) = MLP, trained by Adam on the preference (or Bernoulli) log-likelihood pulled toward θ_0.

    Args:
        d, width, depth, symmetric: the network (see :class:`bandit_neural.nets.MLP`).
        reg: the coefficient of (m·reg/2)‖θ − θ_0‖² in the loss.
        lr: Adam learning rate.
        train_steps: J, Adam steps per fit (full batch).
        train_every, dense_rounds: fit after every round while the round count is <= ``dense_rounds``,
            then every ``train_every`` rounds (spec's pilot schedule: 200, then every 10).
        warm_start: start each fit from the current θ (``False``: from θ_0, as the theory does).
        seed: the initial weights θ_0.
        device, dtype: where the network lives.
    """

    def __init__(
        self,
        d: int,
        width: int = 64,
        depth: int = 2,
        *,
        reg: float = 1.0,
        lr: float = 1e-2,
        train_steps: int = 100,
        train_every: int = 10,
        dense_rounds: int = 200,
        warm_start: bool = True,
        symmetric: bool = True,
        seed: int = 0,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        check_positive(reg, "reg", strict=False)
        check_positive(lr, "lr")
        check_int(train_steps, "train_steps", low=1)
        check_int(train_every, "train_every", low=1)
        gen = torch.Generator().manual_seed(seed)
        self.net = MLP(d, width, depth, symmetric=symmetric, generator=gen, device=device, dtype=dtype)
        self.theta0 = [w.detach().clone() for w in self.net.weights]
        self.theta0_flat = self.net.flat_params().clone()
        self._shapes = [tuple(w.shape) for w in self.theta0]
        self.d, self.p, self.m = d, self.net.num_params, width
        self.reg, self.lr, self.train_steps = float(reg), float(lr), train_steps
        self.train_every, self.dense_rounds, self.warm_start = train_every, dense_rounds, warm_start
        self.n_fits = 0

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (K, d) → h(x; θ_t): (K,), φ = g(x; θ_t)/√m: (K, p)."""
        h, g = values_and_grads(self.net, x)
        return h, g / math.sqrt(self.m)

    def should_fit(self, n_rounds: int) -> bool:
        """Whether to refit after ``n_rounds`` rounds (the training schedule)."""
        return n_rounds <= self.dense_rounds or n_rounds % self.train_every == 0

    def loss(self, x1: torch.Tensor, x2: torch.Tensor | None, y: torch.Tensor) -> torch.Tensor:
        """The training loss L(θ) at the current θ (see the module docstring)."""
        if x2 is None:
            data = binary_loss(self.net(x1), y)
        else:
            h = self.net(torch.cat([x1, x2]))
            data = preference_loss(h[: len(x1)], h[len(x1) :], y)
        pull = sum(((w - w0) ** 2).sum() for w, w0 in zip(self.net.weights, self.theta0, strict=True))
        return data + 0.5 * self.m * self.reg * pull

    @torch_threads(1)
    def fit(self, x1: torch.Tensor, x2: torch.Tensor | None, y: torch.Tensor) -> None:
        """J Adam steps on the loss of all data: x1, x2: (n, d) (x2 None for binary feedback), y: (n,).

        The loss gradient is back-propagated by hand on one flat parameter vector and Adam is applied to
        it in place (the same update as ``torch.optim.Adam`` with its defaults; about 3x faster than
        autograd here, where per-op overhead dominates; the tests compare the two).
        """
        theta = self.theta0_flat.clone() if not self.warm_start else self.net.flat_params()
        x = x1 if x2 is None else torch.cat([x1, x2])
        n = len(x1)
        m1, m2 = torch.zeros_like(theta), torch.zeros_like(theta)
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        for step in range(1, self.train_steps + 1):
            weights = self._unflatten(theta)
            acts, masks = forward_activations(weights, x)
            h = self.net.scale * (acts[-1] @ weights[-1].T).squeeze(-1)
            if x2 is None:
                dh = torch.sigmoid(h) - y
            else:
                r = torch.sigmoid(h[:n] - h[n:]) - y
                dh = torch.cat([r, -r])
            grad = backprop_weighted_sum(weights, acts, masks, dh, self.net.scale)
            grad.add_(theta - self.theta0_flat, alpha=self.m * self.reg)
            m1.lerp_(grad, 1 - beta1)
            m2.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = (m2.sqrt() / math.sqrt(1 - beta2**step)).add_(eps)
            theta.addcdiv_(m1, denom, value=-self.lr / (1 - beta1**step))
        self._set_params(theta)
        self.n_fits += 1

    def _set_params(self, theta: torch.Tensor) -> None:
        with torch.no_grad():
            for w, v in zip(self.net.weights, self._unflatten(theta), strict=True):
                w.copy_(v)

    def _unflatten(self, theta: torch.Tensor) -> list[torch.Tensor]:
        out, start = [], 0
        for shape in self._shapes:
            size = shape[0] * shape[1]
            out.append(theta[start : start + size].view(shape))
            start += size
        return out


class LinearUtility:
    """h(x) = xᵀw with w the exact L2-regularised logistic MLE (damped Newton), φ(x) = x.

    Args:
        d: dimension.
        lam: λ of (λ/2)‖w‖².
        device, dtype: storage of w.
    """

    def __init__(
        self,
        d: int,
        *,
        lam: float = 1.0,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        check_positive(lam, "lam")
        self.d = self.p = d
        self.lam = float(lam)
        self.w = torch.zeros(d, device=torch_device(device), dtype=dtype)
        self.n_fits = 0

    def features(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (K, d) → h = x w: (K,), φ = x: (K, d)."""
        return x @ self.w, x

    def should_fit(self, n_rounds: int) -> bool:
        """The linear MLE is cheap: refit after every round."""
        return True

    def objective(self, z: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """Σ BCE(z w, y) + (λ/2)‖w‖² for design z: (n, d)."""
        return binary_loss(z @ w, y) + 0.5 * self.lam * (w @ w)

    @torch_threads(1)
    def fit(self, x1: torch.Tensor, x2: torch.Tensor | None, y: torch.Tensor, *, tol: float = 1e-10) -> None:
        """Exact MLE on the differences x1 − x2 (preferences) or on x1 (binary), warm-started from w."""
        z = x1 if x2 is None else x1 - x2
        eye = torch.eye(self.d, device=z.device, dtype=z.dtype)
        w = self.w
        f = self.objective(z, y, w)
        for _ in range(100):
            mu = torch.sigmoid(z @ w)
            grad = z.T @ (mu - y) + self.lam * w
            hess = (z.T * (mu * (1 - mu))) @ z + self.lam * eye
            step = torch.linalg.solve(hess, grad)
            t = 1.0
            while True:  # backtracking: Newton on a strictly convex objective, halve until it decreases
                w_new = w - t * step
                f_new = self.objective(z, y, w_new)
                if f_new <= f or t < 1e-8:
                    break
                t *= 0.5
            w, f = w_new, f_new
            if float(step.abs().max()) * t < tol:
                break
        self.w = w
        self.n_fits += 1
