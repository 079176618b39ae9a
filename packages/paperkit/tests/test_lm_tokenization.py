"""paperkit.lm tokenizers: exact round-trips, the special-token layout, BPE merges and vocabulary bounds."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from paperkit.lm import SPECIAL_TOKENS, char_tokenizer, train_bpe_tokenizer

CORPUS = [
    "the cat sat on the mat.",
    "the dog sat on the log.",
    "a cat and a dog: 42 naps!",
    "  two  spaces, a tab\tand a new line\n",
    "naïve café — ünïcödé ✓",
] * 20


def test_char_tokenizer_ids_and_specials() -> None:
    tok = char_tokenizer("cab")
    assert tok.convert_ids_to_tokens(list(range(len(tok)))) == [*SPECIAL_TOKENS, "a", "b", "c"]
    assert (tok.pad_token, tok.bos_token, tok.eos_token, tok.unk_token) == SPECIAL_TOKENS
    assert (tok.pad_token_id, tok.bos_token_id, tok.eos_token_id, tok.unk_token_id) == (0, 1, 2, 3)
    assert tok.padding_side == "right"
    assert tok("abca")["input_ids"] == [4, 5, 6, 4]  # no specials added by plain encoding
    assert tok("abxa")["input_ids"] == [4, 5, 3, 4]  # unknown character -> <unk>


@pytest.mark.parametrize(
    "text", ["hello world", "  leading and trailing  ", "new\nlines\tand tabs", "naïve ✓ 42", "a . b , c ' d"]
)
def test_char_tokenizer_round_trips_any_text_over_its_alphabet(text: str) -> None:
    tok = char_tokenizer([*CORPUS, text])
    ids = tok(text)["input_ids"]
    assert len(ids) == len(text)  # one token per character
    assert tok.decode(ids) == text  # no whitespace clean-up
    assert tok.convert_ids_to_tokens(ids) == list(text)


def test_char_tokenizer_from_iterable_equals_from_string() -> None:
    a = char_tokenizer("".join(CORPUS))
    b = char_tokenizer(iter(CORPUS))
    assert a.get_vocab() == b.get_vocab()


def test_char_tokenizer_rejects_bad_alphabets() -> None:
    with pytest.raises(ValueError, match="alphabet is empty"):
        char_tokenizer("")
    with pytest.raises(TypeError, match="item 1 is int"):
        char_tokenizer(["ab", 3])  # type: ignore[list-item]


def test_bpe_round_trips_and_learns_merges() -> None:
    tok = train_bpe_tokenizer(CORPUS, 120)
    assert len(tok) <= 120
    assert tok.convert_ids_to_tokens([0, 1, 2, 3]) == list(SPECIAL_TOKENS)
    assert tok.padding_side == "right" and tok.pad_token_id == 0 and tok.eos_token_id == 2
    for text in [*set(CORPUS), "the cat sat on the log.  ", "ünï\n\tcafé"]:
        ids = tok(text)["input_ids"]
        assert tok.decode(ids) == text
    n_bytes = len(b"the cat sat on the mat.")
    assert len(tok("the cat sat on the mat.")["input_ids"]) < n_bytes / 2  # merges compress seen text
    assert tok.unk_token_id in tok("~")["input_ids"]  # a byte never seen in training


def test_bpe_is_deterministic_and_the_seed_changes_nothing() -> None:
    a, b = train_bpe_tokenizer(CORPUS, 100), train_bpe_tokenizer(CORPUS, 100, seed=5)
    assert a.backend_tokenizer.to_str() == b.backend_tokenizer.to_str()


def test_bpe_vocab_size_bounds() -> None:
    n_bytes = len({b for t in CORPUS for b in t.encode()})
    tok = train_bpe_tokenizer(CORPUS, 4 + n_bytes)  # the smallest allowed: the alphabet, no merges
    assert len(tok) == 4 + n_bytes
    with pytest.raises(ValueError, match=f"needs at least {4 + n_bytes} tokens"):
        train_bpe_tokenizer(CORPUS, 3 + n_bytes)


def test_bpe_rejects_bad_input() -> None:
    with pytest.raises(TypeError, match="not a single str"):
        train_bpe_tokenizer("the cat", 50)
    with pytest.raises(TypeError, match="item 1 is bytes"):
        train_bpe_tokenizer(["a", b"b"], 50)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="texts are empty"):
        train_bpe_tokenizer(["", ""], 50)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        train_bpe_tokenizer(["abc"], 50, seed=-1)
