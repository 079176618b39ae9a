"""Tokenizer augmentation (the paper's "vocabulary expansion"): merge a B-trained BPE into A's vocabulary.

Both tokenizers are byte-level BPEs (GPT-2's scheme; A's holds all 256 bytes, so B text is never
``<unk>`` under it, only long). The expanded tokenizer keeps every A id and appends, in B's order, the B
tokens that A lacks; its merge list is A's merges followed by B's. A B merge is kept only when its result
holds at least one byte outside ``protected`` (by default all ASCII bytes and every byte of A's merged
tokens). Why that keeps A's tokenisation exact: BPE applies the lowest-ranked pair present; every kept B
merge ranks after all A merges and needs a non-protected byte, so on a string of protected bytes no B merge
can ever fire, and on any string the A merges all fire first; the B merges then only shorten the result.
So for protected strings the ids are identical, and no string gets more tokens than under A (tests).
B merges whose result has only protected bytes (e.g. ``" ."``) would change A's tokenisation: they are
refused and counted. B tokens already in A's vocabulary (the 256 bytes, shared merges) are skipped and
counted (``on_existing="skip"``) or refused (``on_existing="error"``).

Fertility (tokens per word): ``sum_texts len(encode(text)) / sum_texts len(text.split())``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from paperkit.lm import SPECIAL_TOKENS, train_bpe_tokenizer
from paperkit.validation import check_choice, check_strings
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

__all__ = [
    "Expansion",
    "byte_symbols",
    "expand_tokenizer",
    "fertility",
    "token_bytes",
    "train_bpe",
]


def byte_symbols() -> dict[int, str]:
    """GPT-2's byte -> printable symbol table (the alphabet of byte-level BPE token strings)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


_SYMBOL_TO_BYTE = {s: b for b, s in byte_symbols().items()}
_BYTE_TOKENS = frozenset(_SYMBOL_TO_BYTE)


def token_bytes(token: str) -> bytes:
    """The bytes a byte-level BPE token string stands for (``"Ġthe"`` -> ``b" the"``)."""
    try:
        return bytes(_SYMBOL_TO_BYTE[c] for c in token)
    except KeyError as err:
        raise ValueError(f"token {token!r} is not a byte-level BPE token string") from err


def train_bpe(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A byte-level BPE with all 256 bytes (``paperkit.lm.train_bpe_tokenizer(full_bytes=True)``)."""
    return train_bpe_tokenizer(texts, vocab_size, full_bytes=True)


@dataclass(frozen=True)
class Expansion:
    """What :func:`expand_tokenizer` did.

    Attributes:
        tokenizer: the expanded tokenizer (A's ids first, then ``new_ids``).
        new_ids: ``range(len(base), len(tokenizer))``: the appended tokens, contiguous.
        skipped_existing: B tokens already in A's vocabulary (not added).
        refused: B tokens whose bytes are all protected (adding them could change A's tokenisation).
    """

    tokenizer: PreTrainedTokenizerFast
    new_ids: range
    skipped_existing: tuple[str, ...]
    refused: tuple[str, ...]


def _model_json(tok: Any, name: str) -> dict[str, Any]:
    if not isinstance(tok, PreTrainedTokenizerFast):
        raise TypeError(f"{name} must be a transformers PreTrainedTokenizerFast, got {type(tok).__name__}")
    spec = json.loads(tok.backend_tokenizer.to_str())
    if spec["model"]["type"] != "BPE" or (spec.get("pre_tokenizer") or {}).get("type") != "ByteLevel":
        raise ValueError(f"{name} must be a byte-level BPE tokenizer (GPT-2's scheme)")
    return spec


def _protected_bytes(base_vocab: dict[str, int], protected: bytes | None) -> set[int]:
    if protected is not None:
        return set(protected)
    found = set(range(128))
    for token in base_vocab:
        if token not in SPECIAL_TOKENS and len(token) > 1:
            found.update(token_bytes(token))
    return found


def expand_tokenizer(
    base: PreTrainedTokenizerFast,
    new: PreTrainedTokenizerFast,
    *,
    protected: bytes | None = None,
    on_existing: str = "skip",
) -> Expansion:
    """A's tokenizer plus the B tokens it lacks (module docstring: why A's ids are unchanged).

    Args:
        base: A's byte-level BPE (must hold all 256 bytes, so nothing is ever ``<unk>``).
        new: B's byte-level BPE.
        protected: the bytes whose strings must keep A's tokenisation (default: ASCII + the bytes of A's
            merged tokens).
        on_existing: ``"skip"`` (count B tokens A already has) or ``"error"`` (refuse them).
    """
    check_choice(on_existing, "on_existing", ("skip", "error"))
    spec, other = _model_json(base, "base"), _model_json(new, "new")
    vocab: dict[str, int] = dict(spec["model"]["vocab"])
    missing = [s for s in _BYTE_TOKENS if s not in vocab]
    if missing:
        raise ValueError(f"base lacks {len(missing)} of the 256 byte tokens; train it with full_bytes=True")
    keep_bytes = _protected_bytes(vocab, protected)
    existing = tuple(t for t in other["model"]["vocab"] if t in vocab)
    extra = [t for t in existing if t not in SPECIAL_TOKENS and t not in _BYTE_TOKENS]
    if on_existing == "error" and extra:
        raise ValueError(
            f"new has {len(extra)} token(s) that already exist in the base vocabulary, e.g. {extra[:3]}"
        )
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in spec["model"]["merges"]]
    seen = set(merges)
    refused: list[str] = []
    for m in other["model"]["merges"]:
        left, right = m if isinstance(m, list) else m.split(" ")
        result = left + right
        if result in vocab:
            continue
        if set(token_bytes(result)) <= keep_bytes:
            refused.append(result)
            continue
        vocab[result] = len(vocab)
        if (left, right) not in seen:
            merges.append((left, right))
            seen.add((left, right))
    spec["model"]["vocab"] = vocab
    spec["model"]["merges"] = [list(m) for m in merges]
    spec["model"]["ignore_merges"] = False  # merges decide every word (the ordering argument needs it)
    tok: Any = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(json.dumps(spec)),
        pad_token=base.pad_token,
        bos_token=base.bos_token,
        eos_token=base.eos_token,
        unk_token=base.unk_token,
        padding_side="right",
        clean_up_tokenization_spaces=False,
    )
    return Expansion(tok, range(len(base), len(tok)), existing, tuple(refused))


def fertility(tokenizer: Any, texts: Sequence[str]) -> float:
    """Tokens per whitespace-separated word over ``texts`` (no special tokens added)."""
    texts = check_strings(texts, "texts")
    words = sum(len(t.split()) for t in texts)
    if words == 0:
        raise ValueError("texts hold no words: give at least one non-empty text")
    ids = tokenizer(list(texts), add_special_tokens=False)["input_ids"]
    return sum(len(i) for i in ids) / words
