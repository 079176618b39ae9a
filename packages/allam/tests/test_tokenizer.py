"""Vocabulary expansion against independent checks: A's ids unchanged, round trips, never longer."""

from __future__ import annotations

import numpy as np
import pytest
from allam.tokenizer import byte_symbols, expand_tokenizer, fertility, token_bytes, train_bpe
from paperkit.lm import SPECIAL_TOKENS, char_tokenizer


def test_byte_symbols_is_gpt2s_bijection():
    table = byte_symbols()
    assert len(set(table.values())) == 256 and table[ord("a")] == "a" and table[ord(" ")] == "Ġ"
    assert token_bytes("Ġthe") == b" the"


def test_expansion_keeps_a_ids_exactly(sub):
    ex, base = sub.expansion, sub.tok_a
    rng = np.random.default_rng(0)
    alphabet = list("abdefgiklmnoprstuvz ,.")
    strings = ["".join(rng.choice(alphabet, size=int(rng.integers(1, 40)))) for _ in range(200)]
    strings += sub.texts["a_train"][:50] + sub.texts["a_eval"][:20]
    enc_new = ex.tokenizer(strings, add_special_tokens=False)["input_ids"]
    enc_old = base(strings, add_special_tokens=False)["input_ids"]
    assert enc_new == enc_old


def test_round_trips_and_never_longer_than_base(sub):
    tok, base = sub.expansion.tokenizer, sub.tok_a
    mixed = [a + " " + b for a, b in zip(sub.texts["a_train"][:20], sub.texts["b_train"][:20], strict=True)]
    for text in sub.texts["b_train"][:40] + mixed + ["ωμέγα!? ü 😀"]:
        assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text
    for text in sub.texts["b_train"]:
        assert len(tok(text)["input_ids"]) <= len(base(text)["input_ids"])


def test_new_ids_contiguous_unique_and_specials_kept(sub):
    ex = sub.expansion
    vocab = ex.tokenizer.get_vocab()
    assert ex.new_ids == range(len(sub.tok_a), len(ex.tokenizer)) and len(ex.new_ids) > 0
    assert len(set(vocab)) == len(vocab) == len(ex.tokenizer)
    assert [vocab[s] for s in SPECIAL_TOKENS] == [0, 1, 2, 3]
    assert all(ex.tokenizer.convert_ids_to_tokens(i) not in sub.tok_a.get_vocab() for i in ex.new_ids)
    assert len(ex.skipped_existing) >= 256  # B's byte tokens are A's


def test_all_ascii_b_merges_are_refused_so_a_text_is_unchanged():
    base = train_bpe(["aa bb"] * 5, 270)
    other = train_bpe(["ωω . ωω ."] * 20, 280)  # learns "Ġ." (all ASCII) and Greek merges
    ex = expand_tokenizer(base, other)
    assert "Ġ." in ex.refused and "Ġ." not in ex.tokenizer.get_vocab()
    assert ex.tokenizer(" . aa .")["input_ids"] == base(" . aa .")["input_ids"]
    with pytest.raises(ValueError, match="already exist"):
        expand_tokenizer(base, train_bpe(["aa bb ωω"] * 5, 275), on_existing="error")


def test_fertility_hand_counted():
    tok = char_tokenizer("abcd ")
    assert fertility(tok, ["ab cd", "a"]) == pytest.approx((5 + 1) / 3)
    with pytest.raises(ValueError, match="no words"):
        fertility(tok, ["   "])
    with pytest.raises(TypeError, match="texts"):
        fertility(tok, [3])


def test_bad_tokenizers_are_refused(sub):
    with pytest.raises(TypeError, match="base"):
        expand_tokenizer("gpt2", sub.tok_b)
    with pytest.raises(ValueError, match="byte-level"):
        expand_tokenizer(char_tokenizer("ab"), sub.tok_b)
    with pytest.raises(ValueError, match="on_existing"):
        expand_tokenizer(sub.tok_a, sub.tok_b, on_existing="keep")
