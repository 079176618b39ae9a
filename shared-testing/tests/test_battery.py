from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from shared_testing.battery import MethodBattery, MethodCase, leaves


@dataclass(frozen=True)
class Fit:
    theta: np.ndarray
    loss: float


def good(x: np.ndarray, *, steps: int, seed: int) -> Fit:
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    rng = np.random.default_rng(seed)
    return Fit(theta=x * 2 + rng.standard_normal(x.shape), loss=float(steps))


def mutating(x: np.ndarray, *, steps: int, seed: int) -> Fit:
    x *= 2  # the bug the battery must catch
    return good(x, steps=steps, seed=seed)


def diverging(x: np.ndarray, *, steps: int, seed: int) -> Fit:
    if steps < 1:
        return good(x, steps=steps, seed=seed)
    return Fit(theta=np.full_like(x, np.nan), loss=np.inf)


def _inputs() -> dict:
    return {"x": np.arange(3.0), "steps": 2}


class TestToyBattery(MethodBattery):
    known_exceptions: ClassVar[dict[tuple[str, str], str]] = {
        ("mutating", "no_mutation"): "doubles its input in place (a toy bug)",
        ("diverging", "finite"): "divides by zero on purpose",
    }

    @classmethod
    def cases(cls) -> list[MethodCase]:
        return [
            MethodCase(name, call=fn, inputs=_inputs, bad_inputs={"steps": 0})
            for name, fn in [("good", good), ("mutating", mutating), ("diverging", diverging)]
        ]


def test_leaves_walks_records() -> None:
    found = dict(leaves({"a": [Fit(np.zeros(2), 1.0)], "b": (3,)}))
    assert set(found) == {"out['a'][0].theta", "out['a'][0].loss", "out['b'][0]"}


BATTERY_MODULE = """
import numpy as np
from shared_testing.battery import MethodBattery, MethodCase

def noisy(x, *, seed):
    return np.random.default_rng().standard_normal(3) + x  # ignores its seed

def unnamed(x, *, seed):
    if seed >= 0 and x.sum() < 0:
        raise ValueError("bad input")  # does not say which argument
    return x

class TestBattery(MethodBattery):
    known_exceptions = KNOWN

    @classmethod
    def cases(cls):
        return [
            MethodCase("noisy", call=noisy, inputs=lambda: {"x": np.ones(3)}),
            MethodCase(
                "unnamed", call=unnamed, inputs=lambda: {"x": np.ones(3)}, bad_inputs={"x": -np.ones(3)}
            ),
        ]
"""


@pytest.mark.parametrize(
    ("known", "outcomes"),
    [
        ("{}", {"failed": 2, "passed": 5, "skipped": 3}),
        ('{("noisy", "same_seed"): "ignores its seed", ("unnamed", "bad_input"): "vague"}', {"xfailed": 2}),
        ('{("noisy", "finite"): "wrongly declared"}', {"failed": 3}),
    ],
)
def test_battery_catches_undeclared_failures_and_stale_exceptions(
    pytester: pytest.Pytester, known: str, outcomes: dict[str, int]
) -> None:
    pytester.makepyfile(test_battery_toy=BATTERY_MODULE.replace("KNOWN", known))
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    got = result.parseoutcomes()
    for key, n in outcomes.items():
        assert got.get(key) == n, (key, got, result.stdout.str()[-3000:])


def test_unknown_exception_keys_are_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_battery_toy=BATTERY_MODULE.replace("KNOWN", '{("nope", "finite"): "x"}'))
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    assert "known_exceptions name unknown cases or checks" in result.stdout.str()
