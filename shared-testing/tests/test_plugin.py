import socket

import numpy as np
import pytest
from shared_testing import NetworkAccessError, assert_gradient, assert_identical, finite_difference_grad


def test_slow_and_gpu_markers_are_skipped_by_default(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.slow
        def test_slow():
            pass

        @pytest.mark.gpu
        def test_gpu():
            pass

        def test_plain(device, seed, rng):
            assert device == "cpu" and seed == 0
            assert rng.integers(10**9) == __import__("numpy").random.default_rng(0).integers(10**9)
        """
    )
    res = pytester.runpytest("--strict-markers", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1, skipped=2)
    res = pytester.runpytest("--strict-markers", "-p", "no:cacheprovider", "--run-slow")
    res.assert_outcomes(passed=2, skipped=1)


def test_cuda_device_without_a_gpu_skips_device_tests(pytester: pytest.Pytester):
    pytester.makepyfile("def test_uses_device(device):\n    assert device == 'cuda'\n")
    res = pytester.runpytest("-p", "no:cacheprovider", "--device", "cuda")
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    res.assert_outcomes(**({"passed": 1} if has_gpu else {"skipped": 1}))


def test_network_beyond_loopback_is_refused():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(NetworkAccessError, match="tests run offline"):
            s.connect(("93.184.216.34", 80))
        with pytest.raises(NetworkAccessError):
            s.connect_ex(("8.8.8.8", 53))
    finally:
        s.close()


def test_loopback_is_allowed():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        client.connect(server.getsockname())
        conn, _ = server.accept()
        conn.close()
    finally:
        client.close()
        server.close()


def test_hub_offline_variables_are_set():
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_deterministic_fixture_catches_nondeterminism(deterministic):
    assert deterministic(lambda: {"a": np.arange(3.0), "b": [1, (2, float("nan"))]})["b"][0] == 1
    state = iter(range(10))
    with pytest.raises(AssertionError, match=r"differ|!="):
        deterministic(lambda: np.array([next(state)]))


def test_assert_identical_reports_the_path():
    with pytest.raises(AssertionError, match=r"result\['x'\]\[1\]"):
        assert_identical({"x": [1, 2]}, {"x": [1, 3]})
    with pytest.raises(AssertionError, match="keys differ"):
        assert_identical({"x": 1}, {"y": 1})


def test_finite_differences_match_a_known_gradient_and_catch_a_wrong_one():
    a = np.array([[2.0, 0.5], [0.5, 1.0]])

    def f(x):
        return float(x @ a @ x + np.sin(x).sum())

    x = np.array([0.3, -1.2])
    true = 2 * a @ x + np.cos(x)
    np.testing.assert_allclose(finite_difference_grad(f, x), true, rtol=1e-7)
    assert_gradient(f, true, x)
    with pytest.raises(AssertionError, match="finite differences"):
        assert_gradient(f, a @ x + np.cos(x), x)


def test_torch_one_thread_sets_and_restores_the_thread_count(pytester: pytest.Pytester):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    pytester.makepyfile(
        """
        import pytest
        import torch

        pytestmark = pytest.mark.usefixtures("torch_one_thread")

        def test_inside():
            assert torch.get_num_threads() == 1
        """
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert torch.get_num_threads() == before
