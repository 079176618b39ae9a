"""The Gram matrix V = ρ I + Σ_s u_s u_sᵀ of the confidence widths, kept as its inverse.

The paper's V_{t−1} = Σ_{s<t} (1/m) Δg_s Δg_sᵀ + (λ/κ_μ) I has one rank-one term a round, so V⁻¹ is
updated by Sherman–Morrison in O(p²) instead of being inverted in O(p³) (what NeuralTS's reference code
does every round). The diagonal approximation of NeuralUCB's practical code keeps diag(V) only.
"""

from __future__ import annotations

import torch
from paperkit.validation import check_int, check_positive

from bandit_neural.nets import torch_device

MAX_DENSE_PARAMS = 5000  # a dense V⁻¹ of p = 5000 is 200 MB in float64


class GramInverse:
    """V⁻¹ for V = reg · I + Σ u uᵀ, with rank-one (Sherman–Morrison) or diagonal updates.

    Args:
        p: dimension of the features u.
        reg: ρ > 0, the prior precision (the paper's λ/κ_μ).
        diagonal: keep only diag(V) (V ≈ diag(reg + Σ u²)); O(p) memory and time a round.
        device, dtype: storage (float64 by default: thousands of rank-one downdates stay accurate).

    Attributes:
        n_updates: number of rank-one terms added.
    """

    def __init__(
        self,
        p: int,
        reg: float,
        *,
        diagonal: bool = False,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        check_int(p, "p", low=1)
        check_positive(reg, "reg (the prior precision)")
        if not diagonal and p > MAX_DENSE_PARAMS:
            raise ValueError(
                f"a dense {p}x{p} V⁻¹ is too large (p > {MAX_DENSE_PARAMS}); "
                "use diagonal=True or a smaller network"
            )
        self.p, self.reg, self.diagonal = p, float(reg), diagonal
        self.device, self.dtype = torch_device(device), dtype
        device = self.device
        if diagonal:
            self._diag = torch.full((p,), self.reg, device=device, dtype=dtype)
        else:
            self._inv = torch.eye(p, device=device, dtype=dtype) / self.reg
        self.n_updates = 0

    def quad(self, u: torch.Tensor) -> torch.Tensor:
        """uᵀ V⁻¹ u for every row: (K, p) → (K,) (clamped at 0 against round-off)."""
        u = u.to(self.dtype)
        out = (u * u / self._diag).sum(dim=-1) if self.diagonal else ((u @ self._inv) * u).sum(dim=-1)
        return out.clamp_min(0.0)

    def update(self, u: torch.Tensor) -> None:
        """V ← V + u uᵀ for one u: (p,). A zero u is a no-op (a duel of an arm with itself)."""
        u = u.to(self.dtype)
        if self.diagonal:
            self._diag += u * u
        else:
            vu = self._inv @ u
            self._inv.addr_(vu / (1.0 + u @ vu), vu, alpha=-1.0)  # one pass over V⁻¹, no host sync
        self.n_updates += 1

    def inverse(self) -> torch.Tensor:
        """V⁻¹ as a dense (p, p) matrix (of the diagonal approximation when ``diagonal``)."""
        return torch.diag(1.0 / self._diag) if self.diagonal else self._inv.clone()
