"""Classical baselines of the paper (CNN, LSTM; GRU added) on the same encoded spike inputs.

Every baseline takes the two spike trains (batch, T, 93), concatenates them to (batch, T, 186) and
returns class logits (batch, 3). Weights are initialised from ``seed`` without touching torch's global
generator state (``torch.random.fork_rng``).
"""

from __future__ import annotations

import torch
from torch import nn


class _Seeded(nn.Module):
    def _init_from(self, seed: int) -> None:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            for m in self.modules():
                if m is not self and hasattr(m, "reset_parameters"):
                    m.reset_parameters()  # type: ignore[operator]


class LSTMClassifier(_Seeded):
    """One-layer LSTM (hidden 128) over time; the last hidden state -> Linear(hidden, 3)."""

    def __init__(self, input_size: int = 186, hidden: int = 128, seed: int = 0, device: str = "cpu") -> None:
        super().__init__()
        self.rnn = nn.LSTM(input_size, hidden, batch_first=True, device=device)
        self.head = nn.Linear(hidden, 3, device=device)
        self._init_from(seed)

    def forward(self, x_force: torch.Tensor, x_torque: torch.Tensor) -> torch.Tensor:
        """x_force, x_torque: (batch, T, 93) -> logits (batch, 3)."""
        h, _ = self.rnn(torch.cat([x_force, x_torque], -1))
        return self.head(h[:, -1])


class GRUClassifier(_Seeded):
    """One-layer GRU (hidden 128) over time; the last hidden state -> Linear(hidden, 3)."""

    def __init__(self, input_size: int = 186, hidden: int = 128, seed: int = 0, device: str = "cpu") -> None:
        super().__init__()
        self.rnn = nn.GRU(input_size, hidden, batch_first=True, device=device)
        self.head = nn.Linear(hidden, 3, device=device)
        self._init_from(seed)

    def forward(self, x_force: torch.Tensor, x_torque: torch.Tensor) -> torch.Tensor:
        """x_force, x_torque: (batch, T, 93) -> logits (batch, 3)."""
        h, _ = self.rnn(torch.cat([x_force, x_torque], -1))
        return self.head(h[:, -1])


class CNN1D(_Seeded):
    """Small temporal CNN: Conv1d(186, 64, 5, stride 2) - ReLU - Conv1d(64, 64, 5, stride 2) - ReLU -
    mean over time - Linear(64, 3)."""

    def __init__(self, input_size: int = 186, channels: int = 64, seed: int = 0, device: str = "cpu") -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(input_size, channels, 5, stride=2, device=device),
            nn.ReLU(),
            nn.Conv1d(channels, channels, 5, stride=2, device=device),
            nn.ReLU(),
        )
        self.head = nn.Linear(channels, 3, device=device)
        self._init_from(seed)

    def forward(self, x_force: torch.Tensor, x_torque: torch.Tensor) -> torch.Tensor:
        """x_force, x_torque: (batch, T >= 13, 93) -> logits (batch, 3)."""
        x = torch.cat([x_force, x_torque], -1).transpose(1, 2)  # (batch, 186, T)
        return self.head(self.net(x).mean(-1))


BASELINES = {"LSTM": LSTMClassifier, "GRU": GRUClassifier, "CNN": CNN1D}

__all__ = ["BASELINES", "CNN1D", "GRUClassifier", "LSTMClassifier"]
