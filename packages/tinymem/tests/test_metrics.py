"""The memorisation metric on hand-built oracle models, and accuracy/perplexity against brute force."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
from tinymem import (
    greedy_continuation,
    next_token_scores,
    percent_memorized,
    perplexity,
    token_accuracy,
)
from tinymem.data import VOCAB_SIZE


class LookupLM(torch.nn.Module):
    """Predicts, for each row, the next token of the stored row sharing its first
    `key_len` tokens."""

    def __init__(self, keys: torch.Tensor, rows: torch.Tensor, key_len: int) -> None:
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))
        self.table = {tuple(k[:key_len].tolist()): r for k, r in zip(keys, rows, strict=True)}
        self.key_len = key_len

    def forward(self, input_ids: torch.Tensor, **_: object) -> SimpleNamespace:
        b, t = input_ids.shape
        logits = torch.zeros(b, t, VOCAB_SIZE)
        for i in range(b):
            row = self.table[tuple(input_ids[i, : self.key_len].tolist())]
            for j in range(t):
                logits[i, j, row[min(j + 1, len(row) - 1)]] = 10.0
        return SimpleNamespace(logits=logits)


def test_oracle_copy_model_is_100_percent_memorised(small_data):
    d, c = small_data, small_data.config
    oracle = LookupLM(d.clean_twins, d.noised, c.prompt_len)
    r = percent_memorized(oracle, d.noised, d.clean_twins, c.prompt_len, c.window)
    assert r.percent_memorized == 100.0 and r.percent_clean_correct == 0.0
    assert r.n_eligible == len(d.noised) and r.memorized_idx.tolist() == list(range(len(d.noised)))


def test_clean_rule_model_is_0_percent_memorised(small_data):
    d, c = small_data, small_data.config
    rule = LookupLM(d.clean_twins, d.clean_twins, c.prompt_len)
    r = percent_memorized(rule, d.noised, d.clean_twins, c.prompt_len, c.window)
    assert r.percent_memorized == 0.0 and r.percent_clean_correct == 100.0 and len(r.memorized_idx) == 0


def test_greedy_continuation_matches_step_by_step(tiny_model, small_data, device):
    prompts = small_data.test[7][:5, :10]
    out = greedy_continuation(tiny_model, prompts, 6)
    x = prompts.to(device)
    for _ in range(6):
        with torch.no_grad():
            x = torch.cat([x, tiny_model(input_ids=x).logits[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(out, x[:, 10:].cpu())


def test_accuracy_and_perplexity_brute_force(tiny_model, small_data, device):
    rows = small_data.test[2]
    with torch.no_grad():
        logits = tiny_model(input_ids=rows.to(device)).logits[:, :-1].cpu()
    tgt = rows[:, 1:]
    pred = logits.argmax(-1)
    assert token_accuracy(tiny_model, rows) == pytest.approx(100.0 * float((pred == tgt).float().mean()))
    mask = tgt != 13
    assert token_accuracy(tiny_model, rows, include_pad=False) == pytest.approx(
        100.0 * float((pred == tgt)[mask].float().mean())
    )
    logp = torch.log_softmax(logits, -1).gather(-1, tgt[..., None]).squeeze(-1)
    assert perplexity(tiny_model, rows) == pytest.approx(math.exp(float(-logp[mask].mean())), rel=1e-4)
    # one pass gives all three, whatever the batching
    scores = next_token_scores(tiny_model, rows, batch_size=3)
    assert scores.accuracy == pytest.approx(token_accuracy(tiny_model, rows))
    assert scores.accuracy_real_tokens == pytest.approx(token_accuracy(tiny_model, rows, include_pad=False))
    assert scores.perplexity == pytest.approx(perplexity(tiny_model, rows), rel=1e-6)


def test_window_longer_than_the_sequences_is_an_error(tiny_model, small_data):
    d = small_data
    with pytest.raises(ValueError, match="longer than the sequences"):
        percent_memorized(tiny_model, d.noised, d.clean_twins, 30, 20)
    with pytest.raises(ValueError, match="share one"):
        percent_memorized(tiny_model, d.noised, d.clean_twins[:, :10], 5, 5)


def test_perplexity_of_an_empty_batch_is_refused(tiny_model, small_data):
    from tinymem import perplexity, token_accuracy

    empty = small_data.test[7][:0]
    with pytest.raises(ValueError, match="n >= 1 and T >= 2"):
        perplexity(tiny_model, empty)
    with pytest.raises(ValueError, match="n >= 1 and T >= 2"):
        token_accuracy(tiny_model, empty)
    all_pad = torch.zeros_like(small_data.test[7][:2])
    from tinymem.data import PAD

    all_pad[:] = PAD
    with pytest.raises(ValueError, match="no non-PAD next token"):
        perplexity(tiny_model, all_pad)
