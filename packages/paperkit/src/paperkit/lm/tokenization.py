"""Tokenizers built locally: one token per character, one per word of a vocabulary, or a byte-level BPE.

All return a ``transformers.PreTrainedTokenizerFast`` with the same four special tokens, in this order
and with these ids: ``<pad>`` = 0, ``<bos>`` = 1, ``<eos>`` = 2, ``<unk>`` = 3. ``padding_side`` is
``"right"``, and encoding adds no special tokens by itself (``tokenizer(text)`` gives the text's tokens
only): :func:`paperkit.lm.encode_prompt_response` and :func:`paperkit.lm.generate` add ``<bos>``/``<eos>``
explicitly. ``decode`` does no clean-up of spaces, so ``decode(encode(text)) == text`` for any text whose
characters (words, bytes) the tokenizer knows; an unknown character (word) becomes ``<unk>``.
(``word_tokenizer(..., whitespace_tokens=False)`` drops whitespace and decodes with single spaces.) A BPE
trained with ``full_bytes=True`` knows every byte, so it round-trips any text.

As everywhere in Hugging Face tokenizers, the literal strings ``<pad>``, ``<bos>``, ``<eos>`` and ``<unk>``
inside a text are read as the special tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIAL_TOKENS: tuple[str, ...] = (PAD, BOS, EOS, UNK)

#: How :func:`word_tokenizer` cuts text into pieces: a word (a letter or ``_`` followed by letters, digits
#: or ``_``, so ``action1`` is one piece), a single digit, a single whitespace character, or a single other
#: character (punctuation, symbols). Every character of a text falls in exactly one piece.
WORD_PIECE = r"[^\W\d]\w*|\d|\s|[^\w\s]"


def _wrap(backend: Tokenizer) -> PreTrainedTokenizerFast:
    tok: Any = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        pad_token=PAD,
        bos_token=BOS,
        eos_token=EOS,
        unk_token=UNK,
        padding_side="right",
        clean_up_tokenization_spaces=False,
    )
    return tok


def char_tokenizer(alphabet: str | Iterable[str]) -> PreTrainedTokenizerFast:
    """A tokenizer with one token per distinct character of ``alphabet`` (plus the four special tokens).

    Args:
        alphabet: a string, or an iterable of strings (e.g. a corpus); every distinct character in it
            gets a token. Ids: the specials 0-3, then the characters in sorted (code-point) order, so the
            same alphabet always gives the same ids.

    Returns:
        ``PreTrainedTokenizerFast`` of ``4 + n_chars`` tokens; ``decode(encode(text)) == text`` for text
        over the alphabet.
    """
    if isinstance(alphabet, str):
        chars = set(alphabet)
    else:
        chars = set()
        for i, piece in enumerate(alphabet):
            if not isinstance(piece, str):
                raise TypeError(
                    f"alphabet must be a str or an iterable of str; item {i} is {type(piece).__name__}"
                )
            chars.update(piece)
    if not chars:
        raise ValueError("alphabet is empty: give at least one character")
    vocab = {s: i for i, s in enumerate([*SPECIAL_TOKENS, *sorted(chars)])}
    # BPE without merges: every character is its own token; characters outside the vocabulary -> <unk>.
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token=UNK))
    backend.decoder = decoders.Fuse()  # join tokens with nothing between them
    return _wrap(backend)


def word_pieces(texts: Iterable[str]) -> list[str]:
    """The distinct pieces (:data:`WORD_PIECE`) of ``texts``, sorted: a vocabulary for :func:`word_tokenizer`
    that covers every text given (e.g. a prompt template rendered with every value it can take)."""
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of strings, not a single str")
    piece = re.compile(WORD_PIECE)
    found: set[str] = set()
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings; item {i} is {type(text).__name__}")
        found.update(piece.findall(text))
    return sorted(found)


def word_tokenizer(
    vocabulary: Iterable[str], *, whitespace: str | None = None, whitespace_tokens: bool = True
) -> PreTrainedTokenizerFast:
    """A word-level tokenizer: one token per piece of ``vocabulary`` (plus the four special tokens).

    Two ways to cut text, chosen by ``whitespace_tokens``:

    - ``True`` (default): pieces are :data:`WORD_PIECE` matches (words, single digits, single whitespace
      characters, single other characters); each piece is one token, or ``<unk>`` when it is not in the
      vocabulary. ``decode`` joins the tokens with nothing between them, so ``decode(encode(text)) ==
      text`` for any text whose pieces are all in the vocabulary.
    - ``False``: text is split on runs of whitespace, which is dropped (no space tokens, so prompts are
      about half as long); every whitespace-free word (``"payoff:"``, ``"42"`` included) is one token or
      ``<unk>``. ``decode`` joins the tokens with single spaces, so ``decode(encode(text)) == text`` for
      text of known words separated by single spaces.

    Args:
        vocabulary: the tokens (an iterable of strings, duplicates allowed). With ``whitespace_tokens``
            each must be exactly one piece, e.g. ``"payoff"``, ``"action3"``, ``"7"``, ``":"`` (not ``"42"``,
            which is two digits, nor ``"two words"``); without, any non-empty string without whitespace.
            Ids: the specials 0-3, then the distinct tokens in sorted (code-point) order.
        whitespace: characters added to the vocabulary as tokens of their own (default space and new
            line), so text can be written with them; only with ``whitespace_tokens=True``.
        whitespace_tokens: keep whitespace as tokens (``True``) or split on it and drop it (``False``).

    Returns:
        ``PreTrainedTokenizerFast`` of ``4 + n_tokens`` tokens.
    """
    if isinstance(vocabulary, str):
        raise TypeError("vocabulary must be an iterable of strings (words), not a single str")
    if not isinstance(whitespace_tokens, bool):
        raise TypeError(f"whitespace_tokens must be a bool, got {type(whitespace_tokens).__name__}")
    if not whitespace_tokens and whitespace is not None:
        raise ValueError(
            "whitespace is only used with whitespace_tokens=True (whitespace is dropped otherwise)"
        )
    spaces = " \n" if whitespace is None else whitespace
    if not isinstance(spaces, str) or any(not c.isspace() for c in spaces):
        raise ValueError(f"whitespace must be a string of whitespace characters, got {whitespace!r}")
    pieces = _vocabulary_pieces(vocabulary, whitespace_tokens)
    if whitespace_tokens:
        pieces |= set(spaces)
    if not pieces:
        raise ValueError("vocabulary is empty: give at least one word")
    vocab = {s: i for i, s in enumerate([*SPECIAL_TOKENS, *sorted(pieces)])}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token=UNK))
    if whitespace_tokens:
        backend.pre_tokenizer = pre_tokenizers.Split(Regex(WORD_PIECE), behavior="isolated")
        backend.decoder = decoders.Fuse()
    else:
        # no decoder: the tokenizers library then joins the tokens with single spaces
        backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return _wrap(backend)


def _vocabulary_pieces(vocabulary: Iterable[str], whitespace_tokens: bool) -> set[str]:
    """The distinct non-special items of ``vocabulary``, each checked to be one token of its mode."""
    piece = re.compile(WORD_PIECE)
    word = re.compile(r"\S+")
    pieces: set[str] = set()
    for i, item in enumerate(vocabulary):
        if not isinstance(item, str):
            raise TypeError(f"vocabulary must hold strings; item {i} is {type(item).__name__}")
        if item in SPECIAL_TOKENS:
            continue
        if whitespace_tokens and piece.fullmatch(item) is None:
            raise ValueError(
                f"vocabulary item {i} ({item!r}) is not one piece (a word, a digit, a whitespace or another "
                "single character), so no text could ever produce it"
            )
        if not whitespace_tokens and word.fullmatch(item) is None:
            raise ValueError(
                f"vocabulary item {i} ({item!r}) is empty or holds whitespace; with whitespace_tokens=False "
                "every token is a whitespace-free word"
            )
        pieces.add(item)
    return pieces


def train_bpe_tokenizer(
    texts: Iterable[str], vocab_size: int, *, seed: int = 0, full_bytes: bool = False
) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE tokenizer (GPT-2's scheme) on ``texts`` with the ``tokenizers`` library.

    Texts are split GPT-2 style (words with their leading space, digits, punctuation) and mapped to bytes;
    the base alphabet is the set of bytes that occur in ``texts`` (``full_bytes=False``: not all 256, so
    tiny vocabularies work) or all 256 bytes (``full_bytes=True``, GPT-2's alphabet), and merges are learned
    until the vocabulary has ``vocab_size`` tokens or no pair occurs twice. Text whose bytes are all in the
    alphabet round-trips exactly; other bytes become ``<unk>`` (never, with ``full_bytes=True``).

    Args:
        texts: the training corpus (at least one non-empty string).
        vocab_size: the largest vocabulary, specials included; at least 4 + the number of distinct bytes
            (4 + 256 with ``full_bytes``).
        seed: accepted for a uniform API; the ``tokenizers`` BPE trainer is deterministic (ties between
            equally frequent pairs are broken by the pair's content), so the seed changes nothing.
        full_bytes: every one of the 256 bytes gets a token, so unseen bytes never map to ``<unk>``.
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__}")
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of strings, not a single str")
    corpus = list(texts)
    for i, t in enumerate(corpus):
        if not isinstance(t, str):
            raise TypeError(f"texts must be strings; item {i} is {type(t).__name__}")
    if not isinstance(full_bytes, bool):
        raise TypeError(f"full_bytes must be a bool, got {type(full_bytes).__name__}")
    n_bytes = len({b for t in corpus for b in t.encode("utf-8")})
    if n_bytes == 0:
        raise ValueError("texts are empty: give at least one non-empty string")
    alphabet = pre_tokenizers.ByteLevel.alphabet() if full_bytes else []
    minimum = len(SPECIAL_TOKENS) + (len(alphabet) if full_bytes else n_bytes)
    if vocab_size < minimum:
        used = "full_bytes=True puts all 256 bytes" if full_bytes else f"the texts put {n_bytes} bytes"
        raise ValueError(
            f"vocab_size={vocab_size} is too small: {used} in the alphabet, so the "
            f"vocabulary needs at least {minimum} tokens (4 specials + the byte alphabet)"
        )
    backend = Tokenizer(models.BPE(unk_token=UNK))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        show_progress=False,
        initial_alphabet=alphabet,
    )
    backend.train_from_iterator(corpus, trainer=trainer)
    return _wrap(backend)
