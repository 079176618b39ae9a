"""Asking a model: logit scoring of the two answer tokens (tiny LMs), or generation + parsing (chat models).

:class:`LogitChooser`: one forward pass a prompt, batched; P(left) = softmax over the logits of the two
single-token answer markers at the last prompt position (renormalised over the pair, so P(left) +
P(right) = 1). :class:`GenerateChooser`: any paperkit ``ChatModel`` (in-process :class:`HFChatModel` or
:class:`OpenAIChatModel` for an OpenAI-compatible endpoint through the official client); its answer is
parsed by :func:`multitp.parse.parse_choice`, unparseable answers are counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from paperkit import check_int

from multitp.parse import parse_choice
from multitp.preferences import choice_to_p

__all__ = ["GenerateChooser", "LogitChooser", "openai_chooser"]


def _single_token(tokenizer: Any, word: str) -> int:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) != 1 or ids[0] == tokenizer.unk_token_id:
        raise ValueError(f"answer marker {word!r} must be one known token of the tokenizer, got ids {ids}")
    return int(ids[0])


@dataclass
class LogitChooser:
    """``p_left(prompts, markers)``: P(save left) from the logits of ``markers = (left, right)``."""

    model: Any
    tokenizer: Any
    batch_size: int = 256

    def p_left(self, prompts: Sequence[str], markers: tuple[str, str], *, device: str = "cpu") -> np.ndarray:
        """``(N,)`` float64 in (0, 1)."""
        import torch

        check_int(self.batch_size, "batch_size", low=1)
        if isinstance(prompts, str) or not len(prompts):
            raise ValueError("prompts must be a non-empty sequence of strings")
        ids_lr = [_single_token(self.tokenizer, m) for m in markers]
        bos = self.tokenizer.bos_token_id
        rows = [[bos, *r] for r in self.tokenizer(list(prompts), add_special_tokens=False)["input_ids"]]
        out = np.empty(len(rows))
        pad = self.tokenizer.pad_token_id
        with torch.inference_mode():
            order = np.argsort([len(r) for r in rows])  # similar lengths per batch: less padding
            for s in range(0, len(rows), self.batch_size):
                idx = order[s : s + self.batch_size]
                width = max(len(rows[i]) for i in idx)
                ids = torch.full((len(idx), width), pad, dtype=torch.long)
                mask = torch.zeros((len(idx), width), dtype=torch.long)
                for j, i in enumerate(idx):
                    ids[j, : len(rows[i])] = torch.tensor(rows[i])
                    mask[j, : len(rows[i])] = 1
                ids, mask = ids.to(device), mask.to(device)
                logits = self.model(input_ids=ids, attention_mask=mask).logits
                last = mask.sum(1) - 1
                pair = logits[torch.arange(len(idx), device=device), last][:, ids_lr].double()
                out[idx] = torch.softmax(pair, -1)[:, 0].cpu().numpy()
        return out


@dataclass
class GenerateChooser:
    """``choose(prompts, options)``: ask ``chat`` (a paperkit ChatModel), parse each reply."""

    chat: Any
    system: str = "You are a helpful assistant."
    max_tokens: int = 48
    markers: tuple[str, str] = ("left", "right")
    replies: list[str] = field(default_factory=list)

    def choose(self, prompts: Sequence[str], options: Sequence[tuple[str, str]]) -> tuple[np.ndarray, int]:
        """``(p_left (N,), n_unparsed)``: NaN where the reply is a refusal or cannot be parsed."""
        if len(prompts) != len(options):
            raise ValueError(
                f"prompts ({len(prompts)}) and options ({len(options)}) must have the same length"
            )
        choices = []
        for prompt, (a, b) in zip(prompts, options, strict=True):
            msgs = [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}]
            reply = self.chat.complete(msgs, max_tokens=self.max_tokens, temperature=0.0)
            self.replies.append(reply)
            choices.append(parse_choice(reply, a, b, self.markers))
        return choice_to_p(choices), sum(c == "neither" for c in choices)


def openai_chooser(base_url: str, model: str, **kw: Any) -> GenerateChooser:
    """A :class:`GenerateChooser` over an OpenAI-compatible endpoint (paperkit's OpenAIChatModel)."""
    from paperkit.lm import OpenAIChatModel

    return GenerateChooser(OpenAIChatModel(base_url, model=model), **kw)
