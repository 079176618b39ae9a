"""Bits per byte and QA scores against closed forms and a brute-force loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from allam.data import qa_probes
from allam.metrics import bits_per_byte, lm_loss, qa_scores
from allam.tokenizer import byte_symbols, train_bpe


class _Uniform(torch.nn.Module):
    """Logits 0 on the given ids and -inf elsewhere (uniform over them)."""

    def __init__(self, vocab: int, ids: list[int]) -> None:
        super().__init__()
        self.bias = torch.full((vocab,), -math.inf)
        self.bias[ids] = 0.0

    def forward(self, input_ids, attention_mask=None):
        class Out:
            logits = self.bias.expand(*input_ids.shape, -1)

        return Out()


def test_uniform_over_256_bytes_is_8_bits_per_byte():
    tok = train_bpe(["ab"], 260)  # no merges: bytes and specials only
    byte_ids = [tok.convert_tokens_to_ids(s) for s in byte_symbols().values()]
    model = _Uniform(len(tok), byte_ids)
    texts = ["hello world", "ωμέγα", "x"]
    assert bits_per_byte(model, tok, texts) == pytest.approx(8.0)
    assert lm_loss(model, tok, texts) == pytest.approx(math.log(256))


def test_qa_scores_match_a_brute_force_loop(sub, tiny):
    probes = qa_probes(sub.world.of("A", "AB")[:6], "A", sub.world)
    got = qa_scores(tiny, sub.tok_a, probes, batch_size=7)
    tok = sub.tok_a
    for i, p in enumerate(probes):
        prompt = [tok.bos_token_id, *tok(p.prompt)["input_ids"]]
        scores = []
        for c in p.candidates:
            ids = tok(c)["input_ids"]
            with torch.no_grad():
                logp = torch.log_softmax(tiny(input_ids=torch.tensor([prompt + ids])).logits[0], -1)
            scores.append(sum(float(logp[len(prompt) - 1 + j, t]) for j, t in enumerate(ids)))
        true = scores[p.candidates.index(p.answer)]
        assert got["rank"][i] == sum(s > true for s in scores)
        # greedy decoding of as many tokens as the answer has
        seq = list(prompt)
        for _ in tok(p.answer)["input_ids"]:
            with torch.no_grad():
                seq.append(int(tiny(input_ids=torch.tensor([seq])).logits[0, -1].argmax()))
        assert bool(got["exact"][i]) == (seq[len(prompt) :] == tok(p.answer)["input_ids"])
    assert np.all((got["rank_score"] >= 0) & (got["rank_score"] <= 1))


def test_bad_metric_inputs(sub, tiny):
    with pytest.raises(ValueError, match="probes"):
        qa_scores(tiny, sub.tok_a, [])
    with pytest.raises(ValueError, match="texts"):
        bits_per_byte(tiny, sub.tok_a, [])
    with pytest.raises(TypeError, match="texts"):
        bits_per_byte(tiny, sub.tok_a, "abc")
