"""New-row initialisation: old logits unchanged, averaged pieces exact, tied and untied heads."""

from __future__ import annotations

import copy

import pytest
import torch
from allam.embeddings import piece_ids, resize_and_init
from paperkit.lm import tiny_causal_lm


def _ids(tok, texts):
    return torch.tensor([tok(t)["input_ids"][:10] for t in texts])


def test_old_logits_unchanged_and_tied_rows_equal(sub, tiny):
    model = copy.deepcopy(tiny)
    x = _ids(sub.tok_a, [t for t in sub.texts["a_train"] if len(sub.tok_a(t)["input_ids"]) >= 10][:4])
    with torch.no_grad():
        before = model(input_ids=x).logits
    resize_and_init(model, sub.tok_a, sub.expansion.tokenizer, sub.expansion.new_ids)
    with torch.no_grad():
        after = model(input_ids=x).logits
    n_old = len(sub.tok_a)
    assert after.shape[-1] == len(sub.expansion.tokenizer)
    assert torch.equal(after[..., :n_old], before)
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight


def test_mean_subword_is_the_mean_of_the_old_pieces(sub, tiny):
    model = copy.deepcopy(tiny)
    old = model.get_input_embeddings().weight.detach().clone()
    ex = sub.expansion
    resize_and_init(model, sub.tok_a, ex.tokenizer, ex.new_ids)
    new = model.get_input_embeddings().weight.detach()
    for t, pieces in zip(ex.new_ids, piece_ids(sub.tok_a, ex.tokenizer, ex.new_ids), strict=True):
        # the pieces spell the token's bytes
        text = ex.tokenizer.convert_tokens_to_string([ex.tokenizer.convert_ids_to_tokens(t)])
        assert sub.tok_a.decode(pieces) == text
        torch.testing.assert_close(new[t], old[pieces].mean(0), atol=1e-7, rtol=0)


def test_untied_head_and_other_inits(sub):
    llama = tiny_causal_lm(sub.tok_a, arch="llama", n_layer=1, n_head=2, d_model=16, max_positions=64, seed=1)
    ex, n_old = sub.expansion, len(sub.tok_a)
    head_old = llama.get_output_embeddings().weight.detach().clone()
    emb_old = llama.get_input_embeddings().weight.detach().clone()
    resize_and_init(llama, sub.tok_a, ex.tokenizer, ex.new_ids, method="mean_all")
    torch.testing.assert_close(
        llama.get_output_embeddings().weight[n_old:], head_old.mean(0).expand(len(ex.new_ids), -1)
    )
    torch.testing.assert_close(
        llama.get_input_embeddings().weight[n_old:], emb_old.mean(0).expand(len(ex.new_ids), -1)
    )
    m1 = tiny_causal_lm(sub.tok_a, n_layer=1, n_head=2, d_model=16, max_positions=64, seed=1)
    m2 = copy.deepcopy(m1)
    for m in (m1, m2):
        resize_and_init(m, sub.tok_a, ex.tokenizer, ex.new_ids, method="random", sigma=0.02, seed=5)
    rows = m1.get_input_embeddings().weight[n_old:]
    assert torch.equal(rows, m2.get_input_embeddings().weight[n_old:])
    assert abs(float(rows.detach().std()) - 0.02) < 0.003


def test_bad_inputs(sub, tiny):
    ex = sub.expansion
    with pytest.raises(ValueError, match="already exist in the vocabulary"):
        resize_and_init(copy.deepcopy(tiny), sub.tok_a, ex.tokenizer, range(5, len(ex.tokenizer)))
    with pytest.raises(ValueError, match="method"):
        resize_and_init(copy.deepcopy(tiny), sub.tok_a, ex.tokenizer, ex.new_ids, method="zeros")
    with pytest.raises(ValueError, match="sigma"):
        resize_and_init(copy.deepcopy(tiny), sub.tok_a, ex.tokenizer, ex.new_ids, sigma=float("nan"))
    with pytest.raises(ValueError, match="embedding rows"):
        resize_and_init(copy.deepcopy(tiny), ex.tokenizer, ex.tokenizer, ex.new_ids)
    with pytest.raises(ValueError, match="new_ids is empty"):
        resize_and_init(copy.deepcopy(tiny), sub.tok_a, ex.tokenizer, range(0))
