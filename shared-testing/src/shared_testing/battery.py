"""The method battery: common checks run over a package's registry of methods.

In the spirit of optax's common optimiser tests and scikit-learn's ``check_estimator``: every method of
a package's registry (the paper's method and its baselines) is called on a small valid problem and must

- ``same_seed``: give identical outputs for the same seed (bit for bit, arrays and nested records);
- ``bad_input``: refuse each declared bad input with ``ValueError``/``TypeError`` whose message names
  the argument;
- ``finite``: return only finite numbers;
- ``no_mutation``: leave its array inputs unchanged;
- ``device``: put every tensor it returns on the device it was given (methods that take ``device``;
  numpy methods skip this check).

A package's ``tests/test_methods.py``::

    from shared_testing.battery import MethodBattery, MethodCase

    class TestMethods(MethodBattery):
        @classmethod
        def cases(cls):
            return [MethodCase(name, call=..., inputs=..., bad_inputs={"n_episodes": 0}) for name in REGISTRY]

        known_exceptions = {("fixed_initial", "finite"): "plays one gain forever; diverges on purpose"}

A known exception must still fail (it is run and expected to fail), so a fixed one is noticed.
"""

from __future__ import annotations

import copy
import dataclasses
import numbers
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pytest

from shared_testing.determinism import assert_identical

__all__ = ["CHECKS", "MethodBattery", "MethodCase", "leaves"]

CHECKS = ("same_seed", "bad_input", "finite", "no_mutation", "device")


@dataclass(frozen=True)
class MethodCase:
    """One registry entry, as the battery calls it: ``call(**inputs(), seed=s[, device=d])``.

    Attributes:
        name: the registry name (test ids and ``known_exceptions`` keys use it).
        call: the method's entry point.
        inputs: returns fresh, small, valid keyword inputs (called once per check).
        bad_inputs: argument name -> a bad value for it; the call must raise ValueError/TypeError whose
            message contains the argument's name.
        seed_arg: the name of the seed argument (``None``: the method takes no seed).
        device_arg: the name of the device argument (``None``: numpy method, ``device`` is skipped).
    """

    name: str
    call: Callable[..., Any]
    inputs: Callable[[], dict[str, Any]]
    bad_inputs: Mapping[str, Any] = field(default_factory=dict)
    seed_arg: str | None = "seed"
    device_arg: str | None = None

    def run(
        self, *, seed: int = 0, device: str | None = None, **overrides: Any
    ) -> tuple[Any, dict[str, Any]]:
        """(output, the inputs passed) for one call."""
        kwargs = {**self.inputs(), **overrides}
        if self.seed_arg is not None:
            kwargs[self.seed_arg] = seed
        if self.device_arg is not None and device is not None:
            kwargs[self.device_arg] = device
        return self.call(**kwargs), kwargs


def leaves(value: Any, path: str = "out") -> Iterator[tuple[str, Any]]:
    """Every number, array and tensor inside ``value`` (dataclasses, mappings, sequences), with its path."""
    torch = sys.modules.get("torch")
    if isinstance(value, np.ndarray | numbers.Number) or (
        torch is not None and isinstance(value, torch.Tensor)
    ):
        yield path, value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from leaves(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from leaves(v, f"{path}[{k!r}]")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")


def _as_numpy(x: Any) -> np.ndarray:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return np.asarray(x.detach().cpu().numpy())
    return np.asarray(x)


def check_same_seed(case: MethodCase, device: str | None) -> None:
    first, _ = case.run(seed=0, device=device)
    second, _ = case.run(seed=0, device=device)
    assert_identical(_to_plain(first), _to_plain(second), f"{case.name} output")


def _to_plain(value: Any) -> Any:
    """Nested lists/dicts of numpy arrays, so that ``assert_identical`` can compare records."""
    return {path: _as_numpy(x) for path, x in leaves(value)}


def check_bad_input(case: MethodCase, device: str | None) -> None:
    if not case.bad_inputs:
        pytest.skip(f"{case.name} declares no bad inputs")
    for arg, bad in case.bad_inputs.items():
        with pytest.raises((ValueError, TypeError)) as info:
            case.run(device=device, **{arg: bad})
        assert arg in str(info.value), (
            f"{case.name}({arg}={bad!r}) raised {type(info.value).__name__}: {info.value!r}, "
            f"which does not name {arg!r}"
        )


def check_finite(case: MethodCase, device: str | None) -> None:
    out, _ = case.run(device=device)
    found = list(leaves(out))
    assert found, f"{case.name} returned no numbers to check"
    for path, x in found:
        arr = _as_numpy(x)
        if arr.dtype.kind in "fc":
            bad = int(np.size(arr) - np.isfinite(arr).sum())
            assert bad == 0, f"{case.name}: {path} has {bad} non-finite entries"


def check_no_mutation(case: MethodCase, device: str | None) -> None:
    kwargs = case.inputs()
    before = {k: copy.deepcopy(_as_numpy(v)) for k, v in kwargs.items() if _is_array(v)}
    if not before:
        pytest.skip(f"{case.name} takes no array inputs")
    if case.seed_arg is not None:
        kwargs[case.seed_arg] = 0
    if case.device_arg is not None and device is not None:
        kwargs[case.device_arg] = device
    case.call(**kwargs)
    for k, old in before.items():
        np.testing.assert_array_equal(_as_numpy(kwargs[k]), old, err_msg=f"{case.name} mutated its input {k}")


def _is_array(v: Any) -> bool:
    torch = sys.modules.get("torch")
    return isinstance(v, np.ndarray) or (torch is not None and isinstance(v, torch.Tensor))


def check_device(case: MethodCase, device: str | None) -> None:
    if case.device_arg is None:
        pytest.skip(f"{case.name} takes no device (a numpy method)")
    want = device or "cpu"
    out, _ = case.run(device=want)
    torch = sys.modules.get("torch")
    tensors = [(p, x) for p, x in leaves(out) if torch is not None and isinstance(x, torch.Tensor)]
    for path, t in tensors:
        assert t.device.type == want.split(":")[0], f"{case.name}: {path} is on {t.device}, asked for {want}"


_CHECK_FUNCTIONS: dict[str, Callable[[MethodCase, str | None], None]] = {
    "same_seed": check_same_seed,
    "bad_input": check_bad_input,
    "finite": check_finite,
    "no_mutation": check_no_mutation,
    "device": check_device,
}


class MethodBattery:
    """Subclass as ``TestMethods`` and define ``cases()``; every check runs on every case.

    ``known_exceptions`` maps (case name, check) to the reason the check does not hold for that method;
    such a check is run and must fail (reported as an expected failure with the reason).
    """

    known_exceptions: ClassVar[Mapping[tuple[str, str], str]] = {}

    @classmethod
    def cases(cls) -> list[MethodCase]:
        raise NotImplementedError("a MethodBattery subclass lists its registry's cases")

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "battery_case" in metafunc.fixturenames:
            cases = type(self).cases()
            unknown = {
                k for k in self.known_exceptions if k[0] not in {c.name for c in cases} or k[1] not in CHECKS
            }
            if unknown:
                raise ValueError(f"known_exceptions name unknown cases or checks: {sorted(unknown)}")
            params = [(c, check) for c in cases for check in CHECKS]
            metafunc.parametrize("battery_case", params, ids=[f"{c.name}-{check}" for c, check in params])

    def test_method(self, battery_case: tuple[MethodCase, str], request: pytest.FixtureRequest) -> None:
        case, check = battery_case
        device = request.getfixturevalue("device") if case.device_arg is not None else None
        reason = self.known_exceptions.get((case.name, check))
        if reason is None:
            _CHECK_FUNCTIONS[check](case, device)
            return
        try:
            _CHECK_FUNCTIONS[check](case, device)
        except (AssertionError, ValueError, TypeError, ArithmeticError) as exc:
            pytest.xfail(f"known exception: {reason} ({type(exc).__name__})")
        pytest.fail(f"{case.name}/{check} is declared a known exception ({reason}) but now holds; remove it")
