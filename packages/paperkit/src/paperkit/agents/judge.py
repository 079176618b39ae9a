"""Judges: a model (or a rule) that labels a text, with strict verdict parsing and counted errors.

A verdict is parsed strictly: after stripping whitespace (and one pair of surrounding quotes or a final
full stop), the reply must be exactly one of the judge's labels. Anything else ("Yes.", "1 because ...",
"") is an *error*: recorded with the raw reply, excluded from rate denominators, and counted, never
read as a default label such as "no".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from paperkit.validation import check_strings

__all__ = ["ChatJudge", "Judge", "JudgeTally", "RuleJudge", "Verdict", "parse_verdict", "tally"]


@dataclass(frozen=True)
class Verdict:
    """One judged item: ``label`` (``None`` on an error), the judge's ``raw`` reply and the ``error``."""

    label: str | None
    raw: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _check_labels(labels: Sequence[str]) -> tuple[str, ...]:
    out = tuple(check_strings(labels, "labels"))
    if len(out) < 2 or len(set(out)) != len(out) or any(not s.strip() for s in out):
        raise ValueError(f"labels must be at least two distinct non-empty strings, got {list(out)}")
    return out


def parse_verdict(text: str, labels: Sequence[str] = ("0", "1")) -> Verdict:
    """The strict parse described in the module docstring; TypeError when ``text`` is not a str."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    labels = _check_labels(labels)
    core = text.strip()
    if len(core) >= 2 and core[0] == core[-1] and core[0] in "'\"`":
        core = core[1:-1].strip()
    if core.endswith(".") and core[:-1].strip() in labels:
        core = core[:-1].strip()
    if core in labels:
        return Verdict(core, text)
    return Verdict(None, text, f"reply is not exactly one of {list(labels)}")


@runtime_checkable
class Judge(Protocol):
    """Labels each text; one :class:`Verdict` per text, in order."""

    labels: tuple[str, ...]

    def judge(self, texts: Sequence[str]) -> list[Verdict]: ...


class RuleJudge:
    """A judge from a function ``text -> label`` (an offline stand-in for an LLM judge)."""

    def __init__(self, rule: Callable[[str], str], labels: Sequence[str] = ("0", "1")) -> None:
        if not callable(rule):
            raise TypeError(f"rule must be callable, got {type(rule).__name__}")
        self.rule = rule
        self.labels = _check_labels(labels)

    def judge(self, texts: Sequence[str]) -> list[Verdict]:
        return [parse_verdict(str(self.rule(t)), self.labels) for t in check_strings(texts, "texts")]


class ChatJudge:
    """An LLM judge: ``prompt.format(text=...)`` sent as one user message (with ``system`` if given) to a
    chat model with ``complete(messages, max_tokens=..., temperature=...) -> str`` (paperkit.lm's
    ChatModel); greedy, ``max_tokens`` short, the reply parsed with :func:`parse_verdict`."""

    def __init__(
        self,
        model: Any,
        prompt: str,
        *,
        labels: Sequence[str] = ("0", "1"),
        system: str | None = None,
        max_tokens: int = 4,
    ) -> None:
        if not callable(getattr(model, "complete", None)):
            raise TypeError(f"model must have a complete(messages, ...) method, got {type(model).__name__}")
        if not isinstance(prompt, str) or "{text}" not in prompt:
            raise ValueError("prompt must be a str containing the placeholder {text}")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        self.model, self.prompt, self.system, self.max_tokens = model, prompt, system, max_tokens
        self.labels = _check_labels(labels)

    def judge(self, texts: Sequence[str]) -> list[Verdict]:
        out = []
        for t in check_strings(texts, "texts"):
            messages = [{"role": "user", "content": self.prompt.format(text=t)}]
            if self.system:
                messages.insert(0, {"role": "system", "content": self.system})
            reply = self.model.complete(messages, max_tokens=self.max_tokens, temperature=0.0)
            out.append(parse_verdict(reply if isinstance(reply, str) else "", self.labels))
        return out


@dataclass(frozen=True)
class JudgeTally:
    """Counts of a batch of verdicts: ``counts[label]``, ``errors``, ``n`` (all items)."""

    counts: dict[str, int]
    errors: int
    n: int

    def rate(self, label: str) -> float:
        """Share of ``label`` among the parsed verdicts (errors excluded); NaN when none parsed."""
        if label not in self.counts:
            raise KeyError(f"label {label!r} is not one of {sorted(self.counts)}")
        parsed = self.n - self.errors
        return self.counts[label] / parsed if parsed else float("nan")


def tally(verdicts: Sequence[Verdict], labels: Sequence[str] = ("0", "1")) -> JudgeTally:
    """Count ``verdicts`` by label, with errors apart."""
    labels = _check_labels(labels)
    counts = dict.fromkeys(labels, 0)
    errors = 0
    for i, v in enumerate(verdicts):
        if not isinstance(v, Verdict):
            raise TypeError(f"verdicts[{i}] must be a Verdict, got {type(v).__name__}")
        if v.label is None:
            errors += 1
        elif v.label in counts:
            counts[v.label] += 1
        else:
            raise ValueError(f"verdicts[{i}] has label {v.label!r}, not one of {list(labels)}")
    return JudgeTally(counts, errors, len(verdicts))
