"""paperkit.lm tokenizers: exact round-trips, the special-token layout, BPE merges and vocabulary bounds."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from paperkit.lm import SPECIAL_TOKENS, char_tokenizer, train_bpe_tokenizer, word_pieces, word_tokenizer

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


# ---------------------------------------------------------------- word-level


WORDS = ["you", "play", "action1", "action2", "points", ":", "(", ")", ",", "0", "1", "2", "3", "4", "_x9"]


def _brute_word_ids(vocab_tokens: list[str], text: str) -> list[int]:
    """The oracle: cut with the documented rule written out by hand, look every piece up."""
    ids = {t: i for i, t in enumerate(vocab_tokens)}
    pieces, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isalpha() or c == "_":
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            pieces.append(text[i:j])
            i = j
        else:
            pieces.append(c)
            i += 1
    return [ids.get(p, 3) for p in pieces]


def test_word_tokenizer_ids_round_trip_and_match_a_hand_cut() -> None:
    tok = word_tokenizer(WORDS)
    tokens = tok.convert_ids_to_tokens(list(range(len(tok))))
    assert tokens == [*SPECIAL_TOKENS, *sorted({*WORDS, " ", "\n"})]
    assert (tok.pad_token_id, tok.bos_token_id, tok.eos_token_id, tok.unk_token_id) == (0, 1, 2, 3)
    for text in ["you play action1", "points: (3, 0)\nyou play action2", "  action2,action1 ", "_x9 42"]:
        ids = tok(text)["input_ids"]
        assert ids == _brute_word_ids(tokens, text)
        assert tok.decode(ids) == text
    assert tok("action1")["input_ids"] == [tokens.index("action1")]  # one token, not a char split
    assert tok("you dance")["input_ids"] == [tokens.index("you"), tokens.index(" "), 3]  # unknown word
    assert tok("action3")["input_ids"] == [3]  # an unknown word is one <unk>, not seven


def test_word_pieces_cover_their_texts() -> None:
    texts = ["you got 3 points, they got 0.", "answer: action1 or action2?\n"]
    pieces = word_pieces(texts)
    assert pieces == sorted(
        {
            "you",
            "got",
            "3",
            "points",
            ",",
            "they",
            "0",
            ".",
            "answer",
            ":",
            "action1",
            "or",
            "action2",
            "?",
            " ",
            "\n",
        }
    )
    tok = word_tokenizer(pieces)
    for text in texts:
        assert tok.unk_token_id not in tok(text)["input_ids"] and tok.decode(tok(text)["input_ids"]) == text
    with pytest.raises(TypeError, match="not a single str"):
        word_pieces("you")
    with pytest.raises(TypeError, match="item 0 is int"):
        word_pieces([1])  # type: ignore[list-item]


def test_word_tokenizer_rejects_bad_vocabularies() -> None:
    with pytest.raises(TypeError, match="not a single str"):
        word_tokenizer("you play")
    with pytest.raises(TypeError, match="item 1 is int"):
        word_tokenizer(["you", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"item 1 \('42'\) is not one piece"):
        word_tokenizer(["you", "42"])
    with pytest.raises(ValueError, match="not one piece"):
        word_tokenizer(["two words"])
    with pytest.raises(ValueError, match="vocabulary is empty"):
        word_tokenizer([], whitespace="")
    with pytest.raises(ValueError, match="whitespace must be"):
        word_tokenizer(["a"], whitespace="x")


def test_word_tokenizer_without_whitespace_tokens_splits_on_whitespace_and_drops_it() -> None:
    words = ["payoff:", "you", "play", "action1", "action2", "42", "(3,", "0)", "you"]
    tok = word_tokenizer(words, whitespace_tokens=False)
    tokens = tok.convert_ids_to_tokens(list(range(len(tok))))
    assert tokens == [*SPECIAL_TOKENS, *sorted(set(words))]  # no space or new-line tokens
    assert (tok.pad_token_id, tok.bos_token_id, tok.eos_token_id, tok.unk_token_id) == (0, 1, 2, 3)
    vocab = {t: i for i, t in enumerate(tokens)}
    for text in ["you play action1", "payoff: (3, 0)\n you  play\t42 ", " action2"]:
        ids = tok(text)["input_ids"]
        assert ids == [vocab.get(w, 3) for w in text.split()]  # a hand cut: str.split, unknown -> <unk>
        assert tok.decode(ids) == " ".join(text.split())  # joined by single spaces
    assert tok("you dance")["input_ids"] == [vocab["you"], 3]
    assert tok("payoff")["input_ids"] == [3]  # "payoff:" is one word; "payoff" without ":" is not in it
    assert tok.decode(tok("you play action1")["input_ids"]) == "you play action1"  # round trip


def test_word_tokenizer_without_whitespace_tokens_rejects_bad_vocabularies() -> None:
    with pytest.raises(ValueError, match=r"item 1 \('two words'\) is empty or holds whitespace"):
        word_tokenizer(["a", "two words"], whitespace_tokens=False)
    with pytest.raises(ValueError, match="is empty or holds whitespace"):
        word_tokenizer([""], whitespace_tokens=False)
    with pytest.raises(ValueError, match="vocabulary is empty"):
        word_tokenizer(["<pad>"], whitespace_tokens=False)
    with pytest.raises(ValueError, match="only used with whitespace_tokens=True"):
        word_tokenizer(["a"], whitespace=" ", whitespace_tokens=False)
    with pytest.raises(TypeError, match="whitespace_tokens must be a bool"):
        word_tokenizer(["a"], whitespace_tokens=0)  # type: ignore[arg-type]


# ---------------------------------------------------------------- full-byte BPE


def test_full_byte_bpe_knows_every_byte_and_round_trips_unseen_text() -> None:
    tok = train_bpe_tokenizer(CORPUS, 300, full_bytes=True)
    assert len(tok) <= 300
    vocab = tok.get_vocab()
    from tokenizers import pre_tokenizers

    assert set(pre_tokenizers.ByteLevel.alphabet()) <= set(vocab)  # all 256 byte symbols
    unseen = "~ \x00\x7f 漢字 🙂 Ω" + "".join(map(chr, range(32, 127)))
    ids = tok(unseen)["input_ids"]
    assert tok.unk_token_id not in ids
    assert tok.decode(ids) == unseen
    for text in set(CORPUS):  # seen text still compresses
        assert tok.decode(tok(text)["input_ids"]) == text
    assert len(tok("the cat sat on the mat.")["input_ids"]) < len(b"the cat sat on the mat.") / 2


def test_full_byte_bpe_vocab_bounds() -> None:
    assert len(train_bpe_tokenizer(["ab"], 260, full_bytes=True)) == 260
    with pytest.raises(ValueError, match="needs at least 260 tokens"):
        train_bpe_tokenizer(CORPUS, 259, full_bytes=True)
    with pytest.raises(TypeError, match="full_bytes must be a bool"):
        train_bpe_tokenizer(CORPUS, 300, full_bytes=1)  # type: ignore[arg-type]
