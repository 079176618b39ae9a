"""Whitened coordinates of an OLS problem (spec §"Whitening"; official code ``_parse_regression``).

With any square root W of Σ (WWᵀ = Σ), x̃_i = W⁻¹x_i, ẽ = W⁻¹e, Z_i = ⟨x̃_i, ẽ⟩, R_i = s·r_i with
s = sign(β_e) (so that the certified quantity is the move of β_e toward zero). Every quantity the
certificate uses (⟨x̃_i, x̃_j⟩ = x_iᵀΣ⁻¹x_j, Z_i = x_iᵀΣ⁻¹e, ‖ẽ‖² = (Σ⁻¹)_ee) is the same for every
square root; we take the thin QR factor X = QR_x (x̃_i = Q_i, ẽ = R_x⁻ᵀe), which is better conditioned
than the official code's scipy ``sqrtm``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Whitened:
    """Whitened data.

    Attributes:
        Xt: (n, d) rows x̃_i (orthonormal columns: X̃ᵀX̃ = I).
        et: (d,) ẽ.
        Z: (n,) Z_i = ⟨x̃_i, ẽ⟩ (units of 1/column e).
        R: (n,) sign-adjusted residuals s·r_i (units of y).
        sign: s = +1 if β_e ≥ 0 else −1.
        beta_e: |β_e| (units of y per unit of column e).
    """

    Xt: np.ndarray
    et: np.ndarray
    Z: np.ndarray
    R: np.ndarray
    sign: float
    beta_e: float


def whiten(X: np.ndarray, resid: np.ndarray, coef: int, beta_e: float) -> Whitened:
    """Whiten ``X`` (n, d), already validated and of full column rank, for coefficient ``coef``."""
    Q, Rx = np.linalg.qr(X)
    e = np.zeros(X.shape[1])
    e[coef] = 1.0
    et = np.linalg.solve(Rx.T, e)
    sign = -1.0 if beta_e < 0 else 1.0
    return Whitened(Q, et, Q @ et, sign * resid, sign, abs(float(beta_e)))
