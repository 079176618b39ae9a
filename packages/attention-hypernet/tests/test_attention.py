"""The hypernetwork identities, RMSHead, masking and the T5 buckets against independent references."""

from __future__ import annotations

import copy
import math

import pytest
import torch
from attention_hypernet.attention import HyperAttention, apply_generated, relative_position_bucket, rms_head
from attention_hypernet.transformer import MIXERS, Transformer

CASES = [
    (norm, vn) for norm in ("softmax", "none", "rms_head") for vn in ("linear", "linear_mlp", "relu_mlp")
]


def assert_close(a, b, rtol=0.0, atol=1e-12):
    """max |a - b| <= atol + rtol |b| (torch.testing's first use imports seconds of torch internals)."""
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    bad = (a - b).abs() > atol + rtol * b.abs()
    assert not bad.any(), f"max |a - b| = {(a - b).abs().max().item():.3g}"


def make(norm, value_net, *, bias=True, dtype=torch.float64, device="cpu", H=4, d=12):
    gen = torch.Generator().manual_seed(0)
    att = HyperAttention(d, H, 8, 8, norm=norm, value_net=value_net, bias=bias, generator=gen, dtype=dtype)
    return att.to(device)


def inputs(dtype=torch.float64, device="cpu", B=2, T=5, d=12, H=4):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(B, T, d, generator=gen, dtype=dtype).to(device)
    mask = (torch.rand(B, 1, T, T, generator=gen) > 0.3).to(device)
    mask[..., 0] = True  # every query keeps a key
    bias = torch.randn(1, H, T, T, generator=gen, dtype=dtype).to(device)
    return x, mask, bias


@pytest.mark.parametrize(("norm", "value_net"), [c for c in CASES if c[1] != "relu_mlp"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize(("dtype", "tol"), [(torch.float64, 1e-10), (torch.float32, 1e-5)])
def test_attention_is_a_linear_hypernetwork(norm, value_net, masked, dtype, tol, device):
    """MHA(X)_q = sum_k W_{q,k} x_k, W_{q,k} = sum_h a_{h,q,k} W^O_h W^V_h (biases off, as in the paper)."""
    att = make(norm, value_net, bias=False, dtype=dtype, device=device)
    x, mask, bias = inputs(dtype, device)
    mask = mask if masked else None
    W = att.hypernetwork_weights(x, mask, bias)
    y_hyper = torch.einsum("bqkij,bkj->bqi", W, x)
    assert (att(x, mask, bias) - y_hyper).abs().max().item() <= tol


def test_hypernetwork_weights_by_brute_force():
    """W_{q,k} built head by head from the weight matrices (loops), for linear and linear_mlp."""
    x, mask, bias = inputs()
    for value_net in ("linear", "linear_mlp"):
        att = make("rms_head", value_net, bias=False)
        a = att.scores(x, mask, bias)
        wv = att.value.weight.reshape(4, 2, 12)
        wo = att.out.weight.reshape(12, 4, 2)
        W = att.hypernetwork_weights(x, mask, bias)
        for b, q, k in [(0, 0, 0), (1, 3, 2), (0, 4, 1)]:
            z = a[b, :, q, k]
            if value_net == "linear":
                ref = sum(z[h] * wo[:, h] @ wv[h] for h in range(4))
            else:
                ref = sum(z[h] * wo[:, h] for h in range(4)) @ sum(z[h] * wv[h] for h in range(4))
            assert_close(W[b, q, k], ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("norm", "value_net"), CASES)
def test_generated_value_network_reproduces_the_forward_pass_with_biases(norm, value_net, device):
    att = make(norm, value_net, device=device)
    with torch.no_grad():  # non-zero biases so that their terms are exercised
        for lin in (att.query, att.key, att.value, att.out):
            lin.bias.normal_(generator=torch.Generator(device=lin.bias.device).manual_seed(2))
    x, mask, bias = inputs(device=device)
    net = att.value_network(x, mask, bias)
    assert net.act == ("relu" if value_net == "relu_mlp" else "identity")
    assert_close(apply_generated(net, x), att(x, mask, bias), rtol=0, atol=1e-10)


def test_hyla_hidden_width_is_dv_over_heads():
    att = make("rms_head", "relu_mlp")
    x, _, _ = inputs()
    assert att.value_network(x).w1.shape == (2, 5, 5, 2, 12)  # d_v / H = 8 / 4
    with pytest.raises(ValueError, match="relu_mlp"):
        att.hypernetwork_weights(x)


def test_rms_head_normalises_over_heads():
    s = torch.randn(3, 6, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    a = rms_head(s, 1e-6)
    ms = s.pow(2).mean(1, keepdim=True)
    assert_close(a.pow(2).sum(1), (6 * ms / (ms + 1e-6)).squeeze(1), rtol=1e-12, atol=0)
    assert torch.allclose(a.pow(2).sum(1), torch.full((3, 4, 5), 6.0, dtype=torch.float64), atol=1e-4)
    one = rms_head(s[:, :1], 1e-12)
    assert_close(one, torch.sign(s[:, :1]), rtol=0, atol=1e-5)
    assert torch.equal(rms_head(torch.zeros(1, 4, 2, 2)), torch.zeros(1, 4, 2, 2))  # eps keeps 0/0 finite


def test_one_head_rms_head_warns():
    with pytest.warns(UserWarning, match="sign"):
        HyperAttention(8, 1, 8, 8, norm="rms_head")


def test_softmax_matches_torch_sdpa_and_multihead_attention(device):
    """The peer: torch's fused attention and nn.MultiheadAttention with our projections copied in."""
    att = make("softmax", "linear", dtype=torch.float32, device=device, H=4, d=12)
    att = HyperAttention(12, 4, 12, 12, norm="softmax", generator=torch.Generator().manual_seed(0)).to(device)
    x, mask, _ = inputs(torch.float32, device)
    q, k, v = (lin(x).reshape(2, 5, 4, 3).transpose(1, 2) for lin in (att.query, att.key, att.value))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    ref = att.out(ref.transpose(1, 2).reshape(2, 5, 12))
    assert_close(att(x, mask), ref, rtol=1e-5, atol=1e-5)
    mha = torch.nn.MultiheadAttention(12, 4, batch_first=True, device=device)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([att.query.weight, att.key.weight, att.value.weight]))
        mha.in_proj_bias.copy_(torch.cat([att.query.bias, att.key.bias, att.value.bias]))
        mha.out_proj.weight.copy_(att.out.weight)
        mha.out_proj.bias.copy_(att.out.bias)
    out, _ = mha(x, x, x, need_weights=False)
    assert_close(att(x), out, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mixer", sorted(MIXERS))
def test_permutation_equivariance_without_position_bias(mixer):
    model = Transformer(
        3,
        2,
        d_model=16,
        n_layers=2,
        n_heads=4,
        d_qk=8,
        d_v=8,
        d_mlp=16,
        mixer=mixer,
        rel_pos_max_dist=None,
        dtype=torch.float64,
    )
    x = torch.randn(2, 7, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(1))
    assert_close(model(x[:, perm]), model(x)[:, perm], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(
    ("norm", "value_net"), [("none", "linear"), ("rms_head", "relu_mlp"), ("softmax", "linear")]
)
def test_masked_keys_contribute_nothing(norm, value_net):
    att = make(norm, value_net)
    x, _, _ = inputs(B=1)
    mask = torch.ones(1, 1, 5, 5, dtype=torch.bool)
    mask[..., 3:] = False  # keys 3, 4 are padding
    a = att.scores(x, mask)
    assert torch.all(a[..., 3:] == 0)  # linear attention sets masked scores to 0, not -inf
    x2 = x.clone()
    x2[:, 3:] = 100 * torch.randn(1, 2, 12, dtype=torch.float64)
    assert_close(att(x2, mask)[:, :3], att(x, mask)[:, :3], rtol=0, atol=1e-10)


def test_fully_masked_rows_stay_finite():
    for norm in ("softmax", "none", "rms_head"):
        att = make(norm, "relu_mlp")
        x, _, _ = inputs()
        mask = torch.zeros(2, 1, 5, 5, dtype=torch.bool)
        assert torch.isfinite(att(x, mask)).all()


def t5_reference(rel: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """The T5 formula for one offset, in scalar arithmetic."""
    n, ret = -rel, 0
    if bidirectional:
        num_buckets //= 2
        ret += num_buckets if n < 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    exact = num_buckets // 2
    if n < exact:
        return ret + n
    large = exact + int(
        math.log(n / exact + 1.1920929e-07) / math.log(max_distance / exact) * (num_buckets - exact)
    )
    return ret + min(large, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_t5_buckets_match_the_scalar_formula(bidirectional):
    rel = torch.arange(-300, 301)
    got = relative_position_bucket(rel, bidirectional=bidirectional, num_buckets=32, max_distance=128)
    want = [t5_reference(int(r), bidirectional, 32, 128) for r in rel]
    assert got.tolist() == want
    if not bidirectional:
        assert set(got[rel > 0].tolist()) == {0}  # every future offset shares bucket 0
        assert got[rel <= -128].eq(31).all() and torch.equal(
            got[(rel <= 0) & (rel > -16)], -rel[(rel <= 0) & (rel > -16)]
        )


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="d_v must be divisible by n_heads"):
        HyperAttention(8, 3, 6, 8)
    with pytest.raises(ValueError, match="d_qk must be divisible"):
        HyperAttention(8, 4, 6, 8)
    with pytest.raises(ValueError, match="norm"):
        HyperAttention(8, 2, 8, 8, norm="relu")
    att = HyperAttention(8, 2, 8, 8)
    x = torch.zeros(2, 4, 8)
    with pytest.raises(ValueError, match="mask must broadcast"):
        att(x, torch.ones(2, 2, 4, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="mask must broadcast"):
        att(x, torch.ones(4, 4, dtype=torch.bool))
    with pytest.raises(TypeError, match="mask must be a bool"):
        att(x, torch.ones(1, 1, 4, 4))
    with pytest.raises(ValueError, match="x must be an array of shape"):
        att(torch.zeros(2, 4, 7))
    with pytest.raises(ValueError, match="mixer"):
        Transformer(3, 1, mixer="mamba")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_and_a_batch_of_one_match_float64(dtype):
    att64 = make("rms_head", "relu_mlp")
    att = copy.deepcopy(att64).to(dtype)
    x, mask, _ = inputs(B=1)
    y = att(x.to(dtype), mask).double()
    ref = att64(x, mask)
    assert y.shape == (1, 5, 12) and torch.isfinite(y).all()
    assert (y - ref).abs().max().item() <= 0.05 * ref.abs().max().item()
