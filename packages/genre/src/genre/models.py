"""The pair model R_θ(x⁺ | x⁻): a binned autoregressive encoder–decoder transformer.

Official code ``models/binnedpm.py::PairedTransformerBinned``. Encoder tokens are [y⁻, x⁻_1, …, x⁻_d],
decoder tokens [y⁺, x⁺_1, …, x⁺_{d−1}] under a causal mask (labels mapped to ±1), so the decoder's
output at position j predicts the bin of x⁺_{j+1} from x⁻ and x⁺_{≤j}. Every scalar position has its own
1 → E → E MLP embedding (ReLU), plus a learned positional embedding; a linear head shared across positions
gives B bin logits. Bins are the left edges β_b = b/B, b = 0..B−1.

Loss per pair (smoothed-label autoregressive NLL)::

    L = Σ_j − Σ_b q_j(b) log softmax(z_j)_b,   q_j(b) = softmax_b(−B² (x⁺_j − β_b)² / 2)
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from paperkit.validation import check_int
from torch import Tensor, nn

__all__ = ["PairTransformer", "bin_edges", "soft_targets"]


def bin_edges(n_bins: int, device: torch.device | str | None = None) -> Tensor:
    """(B,) left bin edges b/B, b = 0..B−1 (``torch.linspace(0, 1, B + 1)[:-1]``)."""
    return torch.linspace(0.0, 1.0, n_bins + 1, device=device)[:-1]


def soft_targets(x: Tensor, n_bins: int) -> Tensor:
    """Gaussian soft labels of width 1/B around each value, centred on the left bin edges.

    Args:
        x: (...) values in [0, 1]. n_bins: B.

    Returns:
        (..., B) probabilities q(b) = softmax_b(−B² (x − β_b)² / 2); each row sums to 1.
    """
    edges = bin_edges(n_bins, device=x.device).to(x.dtype)
    return (-(n_bins**2) * (x[..., None] - edges) ** 2 / 2).softmax(dim=-1)


class _PositionMLP(nn.Module):
    """Per-position scalar embedding, (B, L) → (B, L, E).

    Position i maps x ↦ W2_i relu(W1_i x + b1_i) + b2_i.
    """

    def __init__(self, n_positions: int, emb: int) -> None:
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(n_positions, emb, 1))
        self.b1 = nn.Parameter(torch.empty(n_positions, emb))
        self.w2 = nn.Parameter(torch.empty(n_positions, emb, emb))
        self.b2 = nn.Parameter(torch.empty(n_positions, emb))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # As n_positions separate nn.Linear(1, E) and nn.Linear(E, E), then Xavier on the matrices.
        for i in range(self.w1.shape[0]):
            nn.init.xavier_uniform_(self.w1.data[i])
            nn.init.xavier_uniform_(self.w2.data[i])
        nn.init.uniform_(self.b1, -1.0, 1.0)
        bound = 1.0 / math.sqrt(self.w2.shape[-1])
        nn.init.uniform_(self.b2, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        L = x.shape[1]
        h = torch.relu(x[..., None] * self.w1[:L, :, 0] + self.b1[:L])
        return torch.einsum("ble,lfe->blf", h, self.w2[:L]) + self.b2[:L]


class PairTransformer(nn.Module):
    """R_θ(x⁺ | x⁻, y): binned autoregressive encoder–decoder transformer over d features in [0, 1].

    Args:
        n_features: d.
        n_bins: B bins per feature (official 50).
        emb: E, model width (official ``train_bpm.py`` 32).
        heads: attention heads (official 8).
        enc_layers, dec_layers: encoder / decoder depth (official 16 + 16; a size knob).
        ff: feed-forward width (official 32).
        dropout: dropout in the transformer and after the positional embedding (official 0.1).
        device: where the parameters live.
    """

    edges: Tensor

    def __init__(
        self,
        n_features: int,
        n_bins: int = 50,
        emb: int = 32,
        heads: int = 8,
        enc_layers: int = 16,
        dec_layers: int = 16,
        ff: int = 32,
        dropout: float = 0.1,
        device: torch.device | str = "cpu",
    ) -> None:
        super().__init__()
        for name, v in (("n_features", n_features), ("n_bins", n_bins), ("emb", emb), ("heads", heads)):
            check_int(v, name, low=1)
        if emb % heads:
            raise ValueError(f"emb ({emb}) must be divisible by heads ({heads})")
        self.n_features = n_features
        self.n_bins = n_bins
        self.embed = _PositionMLP(n_features + 1, emb)  # shared by encoder and decoder, as the official
        self.pos = nn.Parameter(torch.randn(1, n_features + 1, emb) * 0.02)
        self.drop = nn.Dropout(dropout)
        self.transformer = nn.Transformer(
            d_model=emb,
            nhead=heads,
            num_encoder_layers=enc_layers,
            num_decoder_layers=dec_layers,
            dim_feedforward=ff,
            dropout=dropout,
            batch_first=True,
        )
        self.fc = nn.Linear(emb, n_bins)
        self.register_buffer("edges", bin_edges(n_bins))
        # Official train_bpm.py: Xavier-uniform on every parameter with more than one dimension.
        for name, p in self.named_parameters():
            if p.dim() > 1 and not name.startswith("embed."):
                nn.init.xavier_uniform_(p.data.view(-1, p.shape[-1]))
        self.to(device)

    def _tokens(self, label: Tensor, x: Tensor) -> Tensor:
        seq = torch.cat((2.0 * label.reshape(-1, 1) - 1.0, x), dim=1)
        return self.drop(self.embed(seq) + self.pos[:, : seq.shape[1]])

    def encode(self, x_neg: Tensor, y_neg: Tensor) -> Tensor:
        """(n, d+1, E) memory of the encoder over [y⁻, x⁻]."""
        return self.transformer.encoder(self._tokens(y_neg, x_neg))

    def decode_logits(self, memory: Tensor, y_pos: Tensor, prefix: Tensor) -> Tensor:
        """Bin logits (n, j+1, B) of features 1..j+1 given the prefix x⁺_{1..j}: prefix (n, j), j < d."""
        tgt = self._tokens(y_pos, prefix)
        L = tgt.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(L, device=tgt.device, dtype=tgt.dtype)
        out = self.transformer.decoder(tgt, memory, tgt_mask=mask, tgt_is_causal=True)
        return self.fc(out)

    def logits(self, x_neg: Tensor, y_neg: Tensor, x_pos: Tensor, y_pos: Tensor) -> Tensor:
        """Teacher-forced bin logits (n, d, B): row j scores x⁺_j given x⁻, y⁻, y⁺ and x⁺_{<j}.

        Args: x_neg, x_pos: (n, d) float in [0, 1]; y_neg, y_pos: (n,) labels in {0, 1}.
        """
        memory = self.encode(x_neg, y_neg)
        return self.decode_logits(memory, y_pos, x_pos[:, : self.n_features - 1])

    def loss(self, x_neg: Tensor, y_neg: Tensor, x_pos: Tensor, y_pos: Tensor) -> Tensor:
        """(n,) smoothed-label NLL summed over features (nats), as the official ``forward``."""
        logp = self.logits(x_neg, y_neg, x_pos, y_pos).log_softmax(dim=-1)
        q = soft_targets(x_pos, self.n_bins)
        return -(logp * q).sum(dim=-1).sum(dim=-1)

    forward = loss

    @torch.no_grad()
    def sample(
        self,
        x_neg: Tensor,
        y_enc: Tensor | float = 1.0,
        y_target: float = 1.0,
        inv_temp: float = 10.0,
        sigma: float = 0.0,
        generator: torch.Generator | None = None,
        bin_centres: bool = False,
    ) -> Tensor:
        """Forward (ancestral) sampling of x⁺ ~ R_θ(· | x⁻), feature by feature.

        Args:
            x_neg: (n, d) sources in [0, 1].
            y_enc: the encoder's label token (the official sampler feeds y* = 1 for every source).
            y_target: the decoder's first token y⁺.
            inv_temp: multiplies the logits (official ``temp`` = 10 *sharpens*); ``math.inf`` is argmax.
            sigma: std of Gaussian noise added to the sampled bin value (official notebook 0).
            generator: torch generator on x_neg's device, for reproducible draws.
            bin_centres: return β_b + 1/(2B) instead of the official left edge β_b.

        Returns:
            (n, d) float samples (exact bin edges when sigma = 0).
        """
        was_training = self.training
        self.eval()
        try:
            n = x_neg.shape[0]
            dev = x_neg.device
            y_e = torch.as_tensor(y_enc, dtype=x_neg.dtype, device=dev).expand(n).reshape(n)
            y_t = torch.full((n,), float(y_target), dtype=x_neg.dtype, device=dev)
            memory = self.encode(x_neg, y_e)
            hist = torch.zeros((n, 0), dtype=x_neg.dtype, device=dev)
            edges = self.edges.to(x_neg.dtype)
            offset = 0.5 / self.n_bins if bin_centres else 0.0
            for _ in range(self.n_features):
                z = self.decode_logits(memory, y_t, hist)[:, -1]
                if math.isinf(inv_temp):
                    b = z.argmax(dim=-1)
                else:
                    probs = F.softmax(inv_temp * z, dim=-1)
                    b = torch.multinomial(probs, 1, generator=generator)[:, 0]
                val = edges[b] + offset
                if sigma > 0:
                    val = val + sigma * torch.randn(n, generator=generator, device=dev, dtype=x_neg.dtype)
                hist = torch.cat((hist, val[:, None]), dim=1)
            return hist
        finally:
            self.train(was_training)
