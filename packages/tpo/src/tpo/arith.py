"""Programmatic step-by-step arithmetic with preference trees scored by exact correctness.

A problem is a left-nested expression such as ``((3+5)*2)-4`` with K = 2..4 operations. Its gold solution::

    Step 1: 3+5=8
    Step 2: 8*2=16
    Step 3: 16-4=12
    Answer: 12

A preference tree branches off the gold path: branch k copies steps < k, makes an arithmetic slip at step k
(off by one, off by ten, or a sign slip from swapped operands of a subtraction) and carries the wrong value
on consistently to the answer. Together with the gold path and one trajectory wrong from its first step,
the tree's leaves form a :class:`~tpo.data.PreferenceList` whose scores come from
:func:`score_response`, an exact-correctness scorer: the fraction of leading steps that are exactly right
((k-1)/K for a slip at step k, 1 for a correct solution, 0 for a wrong first step).

Everything is generated from a seed; nothing is downloaded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tpo.data import PreferenceList

#: Every character the prompts and responses use (for :func:`paperkit.lm.char_tokenizer`).
ALPHABET = "0123456789+-*=(): \nQASnepstwr"
OPS = "+-*"
SLIP_KINDS = ("off_by_one", "off_by_ten", "operand_swap")

_STEP_RE = re.compile(r"^Step (\d+): (-?\d+)([+\-*])(-?\d+)=(-?\d+)$")
_ANSWER_RE = re.compile(r"^Answer: (-?\d+)$")


def _apply(a: int, op: str, b: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    raise ValueError(f"unknown operator {op!r}; expected one of {OPS!r}")


@dataclass(frozen=True)
class ArithProblem:
    """``((x0 o1 x1) o2 x2) ...``: K = len(ops) steps over K + 1 operands."""

    operands: tuple[int, ...]
    ops: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.ops) < 1 or len(self.operands) != len(self.ops) + 1:
            raise ValueError(
                f"need K >= 1 operators and K + 1 operands, got {len(self.ops)} and {len(self.operands)}"
            )
        if any(op not in OPS for op in self.ops):
            raise ValueError(f"operators must be in {OPS!r}, got {self.ops}")

    @property
    def n_steps(self) -> int:
        return len(self.ops)

    @property
    def expression(self) -> str:
        text = str(self.operands[0])
        for i, (op, x) in enumerate(zip(self.ops, self.operands[1:], strict=True)):
            text = f"{text}{op}{x}"
            if i < len(self.ops) - 1:
                text = f"({text})"
        return text

    @property
    def prompt(self) -> str:
        return f"Q: {self.expression}\n"

    def values(self) -> list[int]:
        """The gold intermediate results u_1..u_K (u_K is the answer)."""
        out, acc = [], self.operands[0]
        for op, x in zip(self.ops, self.operands[1:], strict=True):
            acc = _apply(acc, op, x)
            out.append(acc)
        return out

    @property
    def answer(self) -> int:
        return self.values()[-1]


def render(problem: ArithProblem, written: Sequence[int]) -> str:
    """The response that writes ``written[k-1]`` as the result of step k; each step's left operand is the
    previous step's written result, so one slip propagates consistently."""
    if len(written) != problem.n_steps:
        raise ValueError(f"need {problem.n_steps} step results, got {len(written)}")
    lines, left = [], problem.operands[0]
    for k, (op, x, w) in enumerate(zip(problem.ops, problem.operands[1:], written, strict=True), start=1):
        lines.append(f"Step {k}: {left}{op}{x}={w}")
        left = w
    lines.append(f"Answer: {written[-1]}")
    return "\n".join(lines)


def gold_solution(problem: ArithProblem) -> str:
    return render(problem, problem.values())


def _slip(a: int, op: str, b: int, kind: str, rng: np.random.Generator) -> int:
    right = _apply(a, op, b)
    if kind == "operand_swap" and op == "-" and a != b:
        return b - a
    if kind == "off_by_ten":
        return right + int(rng.choice([-10, 10]))
    if kind in ("off_by_one", "operand_swap"):  # a swap that changes nothing falls back to off-by-one
        return right + int(rng.choice([-1, 1]))
    raise ValueError(f"unknown slip kind {kind!r}; expected one of {SLIP_KINDS}")


def corrupt_at_step(problem: ArithProblem, k: int, rng: np.random.Generator, kind: str | None = None) -> str:
    """Steps < k as in the gold path, a slip at step k (1-based), then right arithmetic on the wrong value."""
    if not 1 <= k <= problem.n_steps:
        raise ValueError(f"k must be in [1, {problem.n_steps}], got {k}")
    kind = kind if kind is not None else str(rng.choice(SLIP_KINDS))
    written, acc = [], problem.operands[0]
    for i, (op, x) in enumerate(zip(problem.ops, problem.operands[1:], strict=True), start=1):
        acc = _slip(acc, op, x, kind, rng) if i == k else _apply(acc, op, x)
        written.append(acc)
    return render(problem, written)


def fully_wrong(problem: ArithProblem, rng: np.random.Generator) -> str:
    """A trajectory with a slip at every step (score 0)."""
    written, acc = [], problem.operands[0]
    for op, x in zip(problem.ops, problem.operands[1:], strict=True):
        acc = _slip(acc, op, x, str(rng.choice(SLIP_KINDS)), rng)
        written.append(acc)
    return render(problem, written)


def answer_of(text: str) -> int | None:
    """The integer after the first ``Answer:`` line, or None when there is none."""
    for line in text.split("\n"):
        m = _ANSWER_RE.match(line.strip())
        if m:
            return int(m.group(1))
    return None


def is_correct(problem: ArithProblem, response: str) -> bool:
    """Exact final-answer correctness (the accuracy metric)."""
    return answer_of(response) == problem.answer


def score_response(problem: ArithProblem, response: str) -> float:
    """Exact-correctness score in [0, 1]: the number of leading steps that are exactly the gold steps,
    divided by K; 1.0 needs every step and the answer right (all steps right but a wrong or missing
    answer scores (K - 1/2) / K)."""
    gold = gold_solution(problem).split("\n")
    lines = [ln.strip() for ln in response.strip().split("\n")]
    k_steps = problem.n_steps
    lead = 0
    for i in range(k_steps):
        if i < len(lines) and lines[i] == gold[i]:
            lead += 1
        else:
            break
    if lead == k_steps:
        return 1.0 if answer_of(response) == problem.answer else (k_steps - 0.5) / k_steps
    return lead / k_steps


def parse_steps(response: str) -> list[tuple[int, int, str, int, int]]:
    """``(k, left, op, right, result)`` of every well-formed step line of a response."""
    out = []
    for line in response.split("\n"):
        m = _STEP_RE.match(line.strip())
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))))
    return out


@dataclass(frozen=True)
class ArithSpec:
    """The problem distribution.

    Attributes:
        min_steps, max_steps: K is uniform in [min_steps, max_steps] (spec: 2..4).
        max_operand: operands are uniform in [1, max_operand] (spec: 20).
        ops: the operators drawn from.
        max_abs_value: problems whose intermediate results exceed this in absolute value are redrawn
            (keeps numbers short for a character-level model).
        min_value: problems with an intermediate result below this are redrawn (None: no bound).
    """

    min_steps: int = 2
    max_steps: int = 4
    max_operand: int = 20
    ops: str = "+-*"
    max_abs_value: int = 999
    min_value: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.min_steps <= self.max_steps:
            raise ValueError(f"need 1 <= min_steps <= max_steps, got {self.min_steps}, {self.max_steps}")
        if self.max_operand < 1:
            raise ValueError(f"max_operand must be >= 1, got {self.max_operand}")
        if not self.ops or any(o not in OPS for o in self.ops):
            raise ValueError(f"ops must be a non-empty subset of {OPS!r}, got {self.ops!r}")


def sample_problem(spec: ArithSpec, rng: np.random.Generator) -> ArithProblem:
    while True:
        k = int(rng.integers(spec.min_steps, spec.max_steps + 1))
        operands = tuple(int(v) for v in rng.integers(1, spec.max_operand + 1, size=k + 1))
        ops = tuple(str(o) for o in rng.choice(list(spec.ops), size=k))
        p = ArithProblem(operands, ops)
        vals = p.values()
        if max(abs(v) for v in vals) <= spec.max_abs_value and (
            spec.min_value is None or min(vals) >= spec.min_value
        ):
            return p


def split_problems(
    sizes: Sequence[int], seed: int, spec: ArithSpec | None = None
) -> list[list[ArithProblem]]:
    """Draw ``sum(sizes)`` problems with pairwise distinct operand tuples and cut them into splits of the
    given sizes, so no operand tuple (a, b, c, ...) appears in two splits."""
    spec = spec or ArithSpec()
    if any(s < 0 for s in sizes):
        raise ValueError(f"split sizes must be >= 0, got {list(sizes)}")
    rng = np.random.default_rng(seed)
    total = sum(sizes)
    seen: set[tuple[int, ...]] = set()
    problems: list[ArithProblem] = []
    tries = 0
    while len(problems) < total:
        tries += 1
        if tries > 50 * total + 1000:
            raise ValueError(f"cannot draw {total} distinct problems from {spec}; widen the distribution")
        p = sample_problem(spec, rng)
        if p.operands not in seen:
            seen.add(p.operands)
            problems.append(p)
    out, start = [], 0
    for s in sizes:
        out.append(problems[start : start + s])
        start += s
    return out


def make_tree(
    problem: ArithProblem, rng: np.random.Generator, n_branches: int = 3, include_wrong: bool = True
) -> PreferenceList:
    """The problem's preference tree as a list: gold + ``n_branches`` slipped branches (+ one trajectory
    wrong throughout), in random order, each scored by :func:`score_response`.

    Branch points are distinct steps while there are enough steps (then drawn again with replacement).
    """
    if n_branches < 0:
        raise ValueError(f"n_branches must be >= 0, got {n_branches}")
    k_steps = problem.n_steps
    ks = list(rng.permutation(np.arange(1, k_steps + 1)))
    while len(ks) < n_branches:
        ks.append(int(rng.integers(1, k_steps + 1)))
    responses = [gold_solution(problem)] + [corrupt_at_step(problem, int(k), rng) for k in ks[:n_branches]]
    if include_wrong:
        responses.append(fully_wrong(problem, rng))
    order = rng.permutation(len(responses))
    responses = [responses[i] for i in order]
    return PreferenceList(problem.prompt, responses, [score_response(problem, r) for r in responses])


def sft_mixture(
    problems: Sequence[ArithProblem], rng: np.random.Generator, gold_fraction: float = 0.7
) -> tuple[list[str], list[str]]:
    """Prompts and SFT targets: the gold solution with probability ``gold_fraction``, else a trajectory
    with a slip at a uniformly drawn step (the spec's 70/30 mix that makes the reference policy err)."""
    if not 0.0 <= gold_fraction <= 1.0:
        raise ValueError(f"gold_fraction must be in [0, 1], got {gold_fraction}")
    prompts, responses = [], []
    for p in problems:
        prompts.append(p.prompt)
        if rng.random() < gold_fraction:
            responses.append(gold_solution(p))
        else:
            responses.append(corrupt_at_step(p, int(rng.integers(1, p.n_steps + 1)), rng))
    return prompts, responses
