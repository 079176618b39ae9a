"""TinyMem math data: programmatic digit sequences with planted noised (memorisable) twins.

Tokens (the official ``old_data.py``): digits ``0``-``9`` are ids 0-9, BOS ``^`` = 10, EOS ``$`` = 11,
the space = 12 and PAD = 13 (vocabulary of 14). A sequence of ``length`` numbers
``v_1 .. v_L`` with ``v_1 = f(i)``, ``v_{j+1} = f(v_j)`` for start index ``i`` is the text
``"^v_1 v_2 ... v_L$"``, one token a character, right-padded with PAD to ``max_ctx``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from paperkit.validation import check_choice, check_instance, check_int

BOS, EOS, SPACE, PAD = 10, 11, 12, 13
VOCAB_SIZE = 14
_CHAR = {**{str(d): d for d in range(10)}, "^": BOS, "$": EOS, " ": SPACE}
_INV = {v: k for k, v in _CHAR.items()} | {PAD: "_"}
KINDS = ("increment", "mult")
DEFAULT_MODULUS = 20134  # official `*_mult` functions: k * v % 20134


def step_fn(kind: str, k: int, modulus: int = DEFAULT_MODULUS) -> Callable[[int], int]:
    """The rule f of a task family: ``increment`` f(v) = v + k, ``mult`` f(v) = k·v mod ``modulus``."""
    if kind == "increment":
        return lambda v: v + k
    if kind == "mult":
        return lambda v: (k * v) % modulus
    raise ValueError(f"unknown kind {kind!r}: expected one of {KINDS}")


def make_sequences(
    kind: str, k: int, n: int, length: int, *, start: int = 0, modulus: int = DEFAULT_MODULUS
) -> np.ndarray:
    """Clean sequences of numbers: row r starts from index ``start + r`` (official ``generate_seq``).

    Returns:
        (n, length) int64 array with ``out[r, 0] = f(start + r)`` and ``out[r, j+1] = f(out[r, j])``.
    """
    if n < 0 or length < 1:
        raise ValueError(f"need n >= 0 and length >= 1, got n={n}, length={length}")
    f = step_fn(kind, k, modulus)
    out = np.empty((n, length), dtype=np.int64)
    for r in range(n):
        v = start + r
        for j in range(length):
            v = f(v)
            out[r, j] = v
    return out


def add_noise(
    seqs: np.ndarray, rng: np.random.Generator, probs: tuple[float, float, float] = (0.9, 0.05, 0.05)
) -> np.ndarray:
    """Add δ ∈ {0, −1, +1} with probabilities ``probs`` to every number independently
    (official ``add_noise``)."""
    if len(probs) != 3 or abs(sum(probs) - 1.0) > 1e-9 or min(probs) < 0:
        raise ValueError(f"probs must be 3 non-negative numbers summing to 1, got {probs}")
    delta = rng.choice(np.array([0, -1, 1]), size=seqs.shape, p=np.asarray(probs))
    return seqs + delta


def tokenize(numbers: np.ndarray | list[int], max_ctx: int) -> torch.Tensor:
    """One sequence of numbers -> (max_ctx,) int64 token ids ``^v1 v2 ... vL$`` + PAD.

    Raises ValueError if the text is longer than ``max_ctx`` tokens (it is never truncated).
    """
    text = "^" + " ".join(str(int(v)) for v in numbers) + "$"
    if "-" in text:
        raise ValueError(f"negative numbers cannot be tokenised: {text!r}")
    if len(text) > max_ctx:
        raise ValueError(
            f"sequence {text!r} is {len(text)} tokens, longer than max_ctx={max_ctx}; "
            "raise max_ctx (n_positions) or shorten the sequences"
        )
    ids = [_CHAR[c] for c in text] + [PAD] * (max_ctx - len(text))
    return torch.tensor(ids, dtype=torch.long)


def tokenize_batch(seqs: np.ndarray, max_ctx: int) -> torch.Tensor:
    """(n, length) numbers -> (n, max_ctx) int64 token ids."""
    if len(seqs) == 0:
        return torch.empty((0, max_ctx), dtype=torch.long)
    return torch.stack([tokenize(s, max_ctx) for s in seqs])


def detokenize(ids: torch.Tensor | list[int]) -> str:
    """Token ids -> text (PAD shown as ``_``)."""
    return "".join(_INV[int(i)] for i in ids)


def parse_numbers(ids: torch.Tensor | list[int]) -> list[int]:
    """The numbers of a tokenised sequence (text between ``^`` and ``$``)."""
    text = detokenize(ids).rstrip("_")
    body = text.removeprefix("^").split("$")[0]
    return [int(t) for t in body.split(" ") if t]


def noise_in_window(noised: torch.Tensor, clean: torch.Tensor, prompt_len: int, window: int) -> torch.Tensor:
    """(n,) bool: the noised and clean token rows differ somewhere in
    positions [prompt_len, prompt_len+window)."""
    sl = slice(prompt_len, prompt_len + window)
    return (noised[:, sl] != clean[:, sl]).any(dim=1)


@dataclass(frozen=True)
class DataConfig:
    """TinyMem data sizes (defaults: the spec's small-scale full run).

    Attributes:
        kind: ``"increment"`` or ``"mult"``.
        main_k, extra_ks: the main distribution (noised one) and the four extra clean ones.
        length: numbers per sequence (paper 20; small scale 8).
        n_main: k=7 training sequences, the noised ones included (paper 20,000).
        n_extra: training sequences per extra k (paper 3,000).
        n_test: held-out test sequences per k (paper 1,000).
        n_noise: noised k=7 training sequences, each with noise inside the window (paper 1,000).
        duplicates: copies of each noised sequence in the training set.
        max_ctx: context length (paper 150).
        prompt_len, window: the memorisation metric's P and K (paper 50 / 50).
        noise_probs: probabilities of δ = 0, −1, +1 (paper 0.9 / 0.05 / 0.05).
        n_ft_extra: fresh (unseen) clean sequences per k for "extra-data" fine-tuning.
    """

    kind: str = "increment"
    main_k: int = 7
    extra_ks: tuple[int, ...] = (2, 3, 4, 5)
    length: int = 8
    n_main: int = 1000
    n_extra: int = 200
    n_test: int = 200
    n_noise: int = 100
    duplicates: int = 4
    max_ctx: int = 48
    prompt_len: int = 20
    window: int = 20
    noise_probs: tuple[float, float, float] = (0.9, 0.05, 0.05)
    n_ft_extra: int = 100
    modulus: int = DEFAULT_MODULUS

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", KINDS)
        for name in ("length", "n_main", "n_test", "duplicates", "max_ctx", "prompt_len", "window"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.n_noise, "n_noise", low=0, high=self.n_main)
        if self.prompt_len + self.window > self.max_ctx:
            raise ValueError(
                f"the memorisation window [prompt_len, prompt_len + window) = [{self.prompt_len}, "
                f"{self.prompt_len + self.window}) is longer than the sequences (max_ctx={self.max_ctx})"
            )


@dataclass(frozen=True)
class TinyMemData:
    """One TinyMem data set (all tensors (n, max_ctx) int64 token ids on the CPU).

    Attributes:
        train: the training set: clean main + extra-k sequences + each noised sequence ``duplicates`` times.
        noised: the distinct noised training sequences; ``clean_twins[i]`` is ``noised[i]`` before noise
            (the twin itself is not in ``train``).
        clean_train: the clean training sequences of all five distributions (no noised ones).
        test: held-out clean sequences per k.
        ft_extra: fresh clean sequences of all five distributions, never trained on.
        dup_counts: (n_noise,) copies of each noised sequence in ``train``.
    """

    config: DataConfig
    train: torch.Tensor
    noised: torch.Tensor
    clean_twins: torch.Tensor
    clean_train: torch.Tensor
    test: dict[int, torch.Tensor]
    ft_extra: torch.Tensor
    dup_counts: torch.Tensor = field(repr=False)

    @property
    def eligible(self) -> torch.Tensor:
        """(n_noise,) bool: noise inside the memorisation window."""
        c = self.config
        return noise_in_window(self.noised, self.clean_twins, c.prompt_len, c.window)


def build_data(config: DataConfig, seed: int = 0) -> TinyMemData:
    """Generate TinyMem data as the official ``get_data`` does, down-scaled by ``config``.

    Per k, ``n_train + n_test`` consecutive start indices are split at random into train and test
    (``split_data``); ``n_noise`` of the main-k training sequences are replaced by noised twins (noise
    redrawn until it lands inside the memorisation window, as the spec asks) and duplicated.
    """
    check_instance(config, "config", DataConfig)
    c = config
    rng = np.random.default_rng(seed)
    ks = (c.main_k, *c.extra_ks)
    train_parts, test = [], {}
    ft_extra = []
    main_train = None
    for k in ks:
        n_train = c.n_main if k == c.main_k else c.n_extra
        total = n_train + c.n_test
        seqs = make_sequences(c.kind, k, total + c.n_ft_extra, c.length, modulus=c.modulus)
        perm = rng.permutation(total)
        tr, te = seqs[perm[:n_train]], seqs[perm[n_train:total]]
        test[k] = tokenize_batch(te, c.max_ctx)
        ft_extra.append(tokenize_batch(seqs[total:], c.max_ctx))
        if k == c.main_k:
            main_train = tr
        else:
            train_parts.append(tr)
    assert main_train is not None
    noise_idx = rng.choice(len(main_train), size=c.n_noise, replace=False)
    clean_idx = np.setdiff1d(np.arange(len(main_train)), noise_idx)
    twins = main_train[noise_idx]
    noised_rows = []
    for row in twins:
        clean_tok = tokenize(row, c.max_ctx)
        for _ in range(1000):
            cand = add_noise(row[None], rng, c.noise_probs)[0]
            if (cand < 0).any():
                continue
            tok = tokenize(cand, c.max_ctx)
            if bool(
                (
                    tok[c.prompt_len : c.prompt_len + c.window]
                    != clean_tok[c.prompt_len : c.prompt_len + c.window]
                ).any()
            ):
                noised_rows.append(tok)
                break
        else:  # pragma: no cover - a window inside the sequence always admits noise
            raise ValueError(
                "could not place noise inside the memorisation window; is the window past the EOS?"
            )
    noised = torch.stack(noised_rows) if noised_rows else torch.empty((0, c.max_ctx), dtype=torch.long)
    clean_twins = tokenize_batch(twins, c.max_ctx)
    clean_train = torch.cat(
        [
            tokenize_batch(main_train[clean_idx], c.max_ctx),
            *[tokenize_batch(p, c.max_ctx) for p in train_parts],
        ]
    )
    train = torch.cat([clean_train, noised.repeat(c.duplicates, 1)])
    train = train[torch.from_numpy(rng.permutation(len(train)))]
    return TinyMemData(
        config=c,
        train=train,
        noised=noised,
        clean_twins=clean_twins,
        clean_train=clean_train,
        test=test,
        ft_extra=torch.cat(ft_extra),
        dup_counts=torch.full((c.n_noise,), c.duplicates, dtype=torch.long),
    )


__all__ = [
    "BOS",
    "EOS",
    "PAD",
    "SPACE",
    "VOCAB_SIZE",
    "DataConfig",
    "TinyMemData",
    "add_noise",
    "build_data",
    "detokenize",
    "make_sequences",
    "noise_in_window",
    "parse_numbers",
    "step_fn",
    "tokenize",
    "tokenize_batch",
]
