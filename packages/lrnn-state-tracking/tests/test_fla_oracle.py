"""flash-linear-attention's pure-torch reference kernels (fla-core, ``fla.ops.delta_rule.naive``) as an
independent oracle for our delta rule, sequential and chunkwise, with and without β up to 2.

fla's kernels scale q by d_k^−½ themselves and ours do not (the DeltaNet layer does), so ours get
q·d_k^−½. fla's chunkwise form needs T to be a multiple of its chunk; its recurrence works in float32.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from lrnn_state_tracking.scan import delta_rule_chunked, delta_rule_sequential


def _load_fla_naive():
    """fla's ``ops/delta_rule/naive.py`` loaded on its own (it imports only torch and einops): importing
    it through ``fla.ops`` would import every Triton kernel module (about 25 CPU-s), too slow here."""
    spec = importlib.util.find_spec("fla")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("fla-core is not installed (it is in this package's test group)", allow_module_level=True)
    path = Path(next(iter(spec.submodule_search_locations))) / "ops" / "delta_rule" / "naive.py"
    mod_spec = importlib.util.spec_from_file_location("fla_delta_rule_naive", path)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module


naive = _load_fla_naive()

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def _inputs(gen: torch.Generator, t_len: int, beta_max: float, device: str) -> tuple[torch.Tensor, ...]:
    b, h, d = 2, 3, 8
    q = torch.randn(b, h, t_len, d, generator=gen).to(device)
    k = torch.nn.functional.normalize(torch.randn(b, h, t_len, d, generator=gen), dim=-1).to(device)
    v = torch.randn(b, h, t_len, d, generator=gen).to(device)
    beta = (beta_max * torch.rand(b, h, t_len, generator=gen)).to(device)
    return q, k, v, beta


@pytest.mark.parametrize("beta_max", [1.0, 2.0])
def test_sequential_delta_rule_equals_fla_recurrence(beta_max, torch_gen, device):
    q, k, v, beta = _inputs(torch_gen, 50, beta_max, device)
    s0 = torch.randn(2, 3, 8, 8, generator=torch_gen).to(device)
    o_ref, s_ref = naive.delta_rule_recurrence(q, k, v, beta, initial_state=s0.clone())
    o, s = delta_rule_sequential(q * 8**-0.5, k, v, beta, s0)
    torch.testing.assert_close(o, o_ref, atol=2e-5, rtol=2e-5)
    torch.testing.assert_close(s, s_ref, atol=2e-5, rtol=2e-5)


@pytest.mark.parametrize(("t_len", "chunk"), [(64, 16), (96, 32)])
def test_chunked_delta_rule_equals_fla_chunkwise(t_len, chunk, torch_gen, device):
    q, k, v, beta = _inputs(torch_gen, t_len, 2.0, device)
    o_ref, s_ref = naive.delta_rule_chunkwise(q, k, v, beta, chunk_size=chunk)
    o, s = delta_rule_chunked(q * 8**-0.5, k, v, beta, chunk=chunk)
    torch.testing.assert_close(o, o_ref, atol=2e-5, rtol=2e-5)
    torch.testing.assert_close(s, s_ref, atol=2e-5, rtol=2e-5)
    # and a chunk size fla does not share, against fla's recurrence (T not a multiple of the chunk)
    o7, _ = delta_rule_chunked(q * 8**-0.5, k, v, beta, chunk=7)
    torch.testing.assert_close(o7, naive.delta_rule_recurrence(q, k, v, beta)[0], atol=2e-5, rtol=2e-5)
