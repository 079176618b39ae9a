"""Network helpers without torch (the CLI checks its arguments before importing the model stack)."""

from __future__ import annotations

from paperkit.serve import is_loopback

__all__ = ["is_loopback"]
