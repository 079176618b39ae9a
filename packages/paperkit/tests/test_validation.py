import doctest
import math

import numpy as np
import paperkit
import pytest
from paperkit import validation as v


def test_doctests_in_the_module_hold() -> None:
    result = doctest.testmod(v)
    assert result.attempted >= 3 and result.failed == 0


def test_root_exports_every_check() -> None:
    for name in v.__all__:
        assert getattr(paperkit, name) is getattr(v, name)
        assert name in paperkit.__all__


# ------------------------------------------------------------------------------------------------- ints


@pytest.mark.parametrize("value", [0, 1, 7, np.int64(3), np.uint8(2)])
def test_check_int_returns_a_plain_int(value: object) -> None:
    out = v.check_int(value, "n")
    assert type(out) is int and out == int(value)  # type: ignore[call-overload]


@pytest.mark.parametrize("value", [True, np.bool_(True), 1.0, 1.5, "3", None, np.float64(2.0)])
def test_check_int_refuses_non_integers_with_a_type_error(value: object) -> None:
    pattern = rf"^n_steps must be an integer >= 1, got .* \({type(value).__name__}\)$"
    with pytest.raises(TypeError, match=pattern):
        v.check_int(value, "n_steps", low=1)


@pytest.mark.parametrize(
    ("value", "low", "high", "message"),
    [
        (0, 1, None, "n_steps must be an integer >= 1, got 0"),
        (11, 1, 10, "n_steps must be an integer in [1, 10], got 11"),
        (0, 1, 10, "n_steps must be an integer in [1, 10], got 0"),
        (6, None, 5, "n_steps must be an integer <= 5, got 6"),
    ],
)
def test_check_int_bounds_are_inclusive_and_named(value: int, low: int, high: int, message: str) -> None:
    with pytest.raises(ValueError, match="n_steps must be an integer") as info:
        v.check_int(value, "n_steps", low=low, high=high)
    assert str(info.value) == message
    assert v.check_int(low if low is not None else high, "n_steps", low=low, high=high) in (low, high)


# ---------------------------------------------------------------------------------------------- numbers


def test_check_positive_strict_and_non_strict() -> None:
    assert v.check_positive(0.5, "lr") == 0.5
    assert type(v.check_positive(3, "k")) is int
    assert type(v.check_positive(np.float32(0.25), "lr")) is float
    with pytest.raises(ValueError, match=r"^lr must be a finite number > 0, got 0$"):
        v.check_positive(0, "lr")
    assert v.check_positive(0, "lam", strict=False) == 0
    with pytest.raises(ValueError, match=r"^lam must be a finite number >= 0, got -1e-09$"):
        v.check_positive(-1e-9, "lam", strict=False)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_check_positive_refuses_non_finite(bad: float) -> None:
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        v.check_positive(bad, "lr")


@pytest.mark.parametrize("bad", [True, "1", None, 1j, [1.0]])
def test_check_positive_type_errors(bad: object) -> None:
    with pytest.raises(TypeError, match=r"^lr must be a finite number > 0, got"):
        v.check_positive(bad, "lr")


def test_check_number_open_and_closed_ends() -> None:
    assert v.check_number(1, "x", low=0, high=1) == 1.0
    with pytest.raises(ValueError, match=r"^x must be a finite number in \(0, 1\), got 1$"):
        v.check_number(1, "x", low=0, high=1, low_open=True, high_open=True)
    with pytest.raises(ValueError, match=r"^x must be a finite number < 2, got 2.0$"):
        v.check_number(2.0, "x", high=2, high_open=True)
    assert v.check_number(math.inf, "budget", low=0, finite=False) == math.inf
    with pytest.raises(ValueError, match="budget must be a number >= 0, got nan"):
        v.check_number(math.nan, "budget", low=0, finite=False)


def test_check_probability() -> None:
    assert v.check_probability(0, "p") == 0.0 and v.check_probability(1, "p") == 1.0
    with pytest.raises(ValueError, match=r"^p must be a finite number in \[0, 1\], got 1.5$"):
        v.check_probability(1.5, "p")
    with pytest.raises(ValueError, match=r"^delta must be a finite number in \(0, 1\), got 0$"):
        v.check_probability(0, "delta", allow_zero=False, allow_one=False)
    with pytest.raises(ValueError, match="got nan"):
        v.check_probability(math.nan, "p")


def test_check_bool_and_seed() -> None:
    assert v.check_bool(np.bool_(False), "flag") is False
    with pytest.raises(TypeError, match=r"^flag must be a bool, got 1 \(int\)$"):
        v.check_bool(1, "flag")
    assert v.check_seed(v.SEED_MAX) == 2**63 - 1
    np.random.default_rng(v.SEED_MAX)  # the bound is one numpy accepts
    with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, 2\*\*63 - 1\], got 2361"):
        v.check_seed(2**71)
    with pytest.raises(ValueError, match="seed must be"):
        v.check_seed(-1)
    with pytest.raises(TypeError, match=r"run_seed must be .* \(bool\)"):
        v.check_seed(True, "run_seed")


def test_check_choice_and_instance() -> None:
    assert v.check_choice("b", "method", ("a", "b")) == "b"
    with pytest.raises(ValueError, match=r"^method must be one of 'a', 'b', got 'c'$"):
        v.check_choice("c", "method", ("a", "b"))
    with pytest.raises(ValueError, match="got \\['a'\\]"):
        v.check_choice(["a"], "method", {"a", "b"})  # unhashable against a set
    assert v.check_instance(3, "k", (int, float)) == 3
    with pytest.raises(TypeError, match=r"^config must be a int or float, got str$"):
        v.check_instance("x", "config", (int, float))


def test_long_values_are_shortened_in_messages() -> None:
    with pytest.raises(ValueError, match="name must be one of") as info:
        v.check_choice("z" * 500, "name", ("a",))
    assert len(str(info.value)) < 120 and str(info.value).endswith("...")


# ----------------------------------------------------------------------------------------------- arrays


def test_check_array_shape_kind_and_finiteness() -> None:
    x = np.zeros((5, 3))
    assert v.check_array(x, "x", shape=(None, 3), kind="f") is x
    with pytest.raises(ValueError, match=r"^x must be an array of shape \(n, 3\), got shape \(5, 2\)$"):
        v.check_array(np.zeros((5, 2)), "x", shape=(None, 3))
    with pytest.raises(ValueError, match=r"^A must be an array of shape \(d, d\), got shape \(2, 3\)$"):
        v.check_array(np.zeros((2, 3)), "A", shape=("d", "d"))
    with pytest.raises(ValueError, match=r"^y must be a 1-D array, got shape \(2, 2\)$"):
        v.check_array(np.eye(2), "y", ndim=1)
    with pytest.raises(TypeError, match=r"^x must be a float array, got dtype int64$"):
        v.check_array(np.arange(3), "x", kind="f")
    with pytest.raises(ValueError, match=r"^x must be finite, got 1 NaN and 2 infinite entries$"):
        v.check_array(np.array([np.nan, np.inf, -np.inf, 0.0]), "x")
    assert v.check_array(np.array([np.nan]), "x", finite=False).shape == (1,)


def test_check_array_converts_sequences_and_refuses_junk() -> None:
    out = v.check_array([[1, 2], [3, 4]], "m", shape=(2, 2), kind="iu")
    assert isinstance(out, np.ndarray) and out.dtype.kind == "i"
    with pytest.raises(TypeError, match="m must be a numeric array"):
        v.check_array([[1, 2], [3]], "m")
    with pytest.raises(TypeError, match="m must be a numeric array, got dtype <U1"):
        v.check_array(["a"], "m")


def test_check_finite_on_scalars_and_complex() -> None:
    assert v.check_finite(1.0, "t") == 1.0
    with pytest.raises(ValueError, match=r"^t must be finite, got inf$"):
        v.check_finite(math.inf, "t")
    with pytest.raises(ValueError, match="1 NaN"):
        v.check_finite(np.array([complex(0, math.nan)]), "z")
    assert v.check_finite(np.arange(3), "k") is not None  # integers are always finite


def test_tensors_are_checked_without_conversion() -> None:
    torch = pytest.importorskip("torch")
    t = torch.zeros(4, 2)
    assert v.check_array(t, "t", shape=(4, None), kind="f") is t
    with pytest.raises(TypeError, match=r"^t must be a float array, got dtype torch.int64$"):
        v.check_array(torch.arange(3), "t", kind="f")
    with pytest.raises(ValueError, match=r"^t must be finite, got 1 NaN and 0 infinite entries$"):
        v.check_array(torch.tensor([1.0, float("nan")]), "t")
    assert v.check_array(torch.tensor([True]), "mask", kind="b").dtype == torch.bool
    assert v.check_array(torch.tensor([1], dtype=torch.uint8), "u", kind="u").shape == (1,)
    np.testing.assert_array_equal(v.check_matrix_pd(2 * torch.eye(2), "R"), 2 * np.eye(2))
    with pytest.raises(ValueError, match="R must be a symmetric positive definite matrix"):
        v.check_matrix_pd(-torch.eye(2), "R")


# ---------------------------------------------------------------------------------------------- matrices


def test_check_matrix_pd_against_eigenvalues() -> None:
    rng = np.random.default_rng(0)
    g = rng.standard_normal((4, 4))
    pd = g @ g.T + 0.1 * np.eye(4)
    np.testing.assert_array_equal(v.check_matrix_pd(pd, "Q"), pd)
    np.testing.assert_array_equal(v.check_matrix_pd([[2]], "R"), np.array([[2.0]]))
    for bad, fragment in [
        (-np.eye(2), "smallest eigenvalue -1"),
        (np.zeros((2, 2)), "smallest eigenvalue 0"),
        (-5 * np.eye(3), "smallest eigenvalue -5"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), "a matrix that is not symmetric"),
    ]:
        pattern = rf"^R must be a symmetric positive definite matrix, got {fragment}"
        with pytest.raises(ValueError, match=pattern):
            v.check_matrix_pd(bad, "R")
    with pytest.raises(ValueError, match="R must be an array of shape"):
        v.check_matrix_pd(np.zeros((2, 3)), "R")
    with pytest.raises(ValueError, match="R must be finite"):
        v.check_matrix_pd(np.array([[np.nan]]), "R")
    with pytest.raises(ValueError, match=r"got shape \(0, 0\)"):
        v.check_matrix_pd(np.zeros((0, 0)), "R")


def test_check_matrix_pd_semidefinite() -> None:
    psd = np.array([[1.0, 1.0], [1.0, 1.0]])  # eigenvalues 0 and 2
    v.check_matrix_pd(psd, "Q", semi=True)
    v.check_matrix_pd(np.zeros((2, 2)), "Q", semi=True)
    with pytest.raises(ValueError, match="Q must be a symmetric positive definite matrix"):
        v.check_matrix_pd(psd, "Q")
    with pytest.raises(ValueError, match="positive semidefinite matrix, got smallest eigenvalue -5"):
        v.check_matrix_pd(-5 * np.eye(2), "Q", semi=True)
