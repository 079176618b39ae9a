"""paperkit.lm scoring: batch layout, log-probabilities against a prefix-by-prefix forward pass, gradients."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperkit.lm import (  # noqa: E402
    char_tokenizer,
    encode_prompt_response,
    sequence_logprobs,
    tiny_causal_lm,
    train_bpe_tokenizer,
)

ARCHS = ["gpt2", "llama"]
PROMPTS = ["abc=", "j=", "hello there=", ""]
RESPONSES = ["cba", "jjjj", "ok", "a b"]


pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def tok() -> transformers.PreTrainedTokenizerFast:
    return char_tokenizer("abcdefghijklmnopqrstuvwxyz =")


def sharpened(model: torch.nn.Module, factor: float = 8.0) -> torch.nn.Module:
    """Scale the weight matrices so the logits are far from uniform (a stricter test than a fresh init)."""
    with torch.no_grad():
        for p in model.parameters():
            if p.ndim >= 2:
                p.mul_(factor)
    return model


def test_encode_layout_by_hand(tok, device: str) -> None:
    batch = encode_prompt_response(tok, ["ab=", ""], ["c", "de"], max_length=8, device=device)
    a, b, c, d, e, eq = (tok.convert_tokens_to_ids(ch) for ch in "abcde=")
    bos, eos, pad = 1, 2, 0
    assert batch["input_ids"].tolist() == [[bos, a, b, eq, c, eos], [bos, d, e, eos, pad, pad]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]]
    assert batch["response_mask"].tolist() == [
        [False, False, False, False, True, True],
        [False, True, True, True, False, False],
    ]
    assert batch["input_ids"].dtype == torch.long and batch["attention_mask"].dtype == torch.long
    assert batch["response_mask"].dtype == torch.bool
    assert all(v.device.type == device for v in batch.values())


def test_encode_tokenises_prompt_and_response_separately() -> None:
    tok = train_bpe_tokenizer(["the cat sat", "the cat sat on the mat"] * 10, 80)
    batch = encode_prompt_response(tok, ["the ca"], ["t sat"], max_length=64)
    n_p, n_r = len(tok("the ca")["input_ids"]), len(tok("t sat")["input_ids"])
    assert int(batch["attention_mask"].sum()) == 2 + n_p + n_r
    assert int(batch["response_mask"].sum()) == n_r + 1


def test_encode_errors(tok) -> None:
    with pytest.raises(ValueError, match="pair 1 is 9 tokens long"):
        encode_prompt_response(tok, ["a", "abcd"], ["b", "efg"], max_length=8)
    with pytest.raises(ValueError, match="differ in length: 2 != 1"):
        encode_prompt_response(tok, ["a", "b"], ["c"], max_length=8)
    with pytest.raises(ValueError, match="empty"):
        encode_prompt_response(tok, [], [], max_length=8)
    with pytest.raises(TypeError, match=r"responses\[0\] must be a str"):
        encode_prompt_response(tok, ["a"], [3], max_length=8)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="prompts must be a sequence of strings"):
        encode_prompt_response(tok, "abc", ["x", "y", "z"], max_length=8)
    with pytest.raises(ValueError, match="max_length must be an int >= 2"):
        encode_prompt_response(tok, ["a"], ["b"], max_length=1)


def prefix_logprob(model: torch.nn.Module, ids: list[int], start: int) -> float:
    """sum_{i >= start} log p(ids[i] | ids[:i]), one unpadded forward pass per prefix, in float64."""
    total = 0.0
    for i in range(start, len(ids)):
        logits = model(torch.tensor([ids[:i]], device=next(model.parameters()).device)).logits[0, -1]
        total += float(torch.log_softmax(logits.double(), -1)[ids[i]])
    return total


@pytest.mark.parametrize("arch", ARCHS)
def test_logprobs_equal_prefix_by_prefix_forward_passes(arch: str, tok, device: str) -> None:
    model = sharpened(tiny_causal_lm(tok, arch=arch, d_model=32, max_positions=32, seed=1, device=device))
    batch = encode_prompt_response(tok, PROMPTS, RESPONSES, max_length=32, device=device)
    with torch.no_grad():
        total, per_token = sequence_logprobs(model, batch)
    assert total.shape == (4,) and per_token.shape == batch["input_ids"].shape
    assert per_token.dtype == torch.float32
    assert torch.equal(
        per_token[~batch["response_mask"]], torch.zeros_like(per_token[~batch["response_mask"]])
    )
    assert (per_token[batch["response_mask"]] < 0).all()
    for b in range(4):
        n = int(batch["attention_mask"][b].sum())
        ids = batch["input_ids"][b, :n].tolist()
        start = 1 + len(tok(PROMPTS[b])["input_ids"])  # first response token
        with torch.no_grad():
            expected = prefix_logprob(model, ids, start)
        assert float(total[b]) == pytest.approx(expected, rel=1e-5, abs=1e-4)
        assert float(total[b]) == pytest.approx(float(per_token[b].sum()), abs=1e-6)
    assert float(total.abs().min()) > 1.0  # sharpened logits: far from a trivial comparison


@pytest.mark.parametrize("arch", ARCHS)
def test_padding_and_batch_neighbours_do_not_change_a_sequence(arch: str, tok, device: str) -> None:
    model = sharpened(tiny_causal_lm(tok, arch=arch, d_model=32, max_positions=32, seed=2, device=device))
    batch = encode_prompt_response(tok, PROMPTS, RESPONSES, max_length=32, device=device)
    with torch.no_grad():
        together, _ = sequence_logprobs(model, batch)
        for b in range(4):
            alone = encode_prompt_response(tok, [PROMPTS[b]], [RESPONSES[b]], max_length=32, device=device)
            single, _ = sequence_logprobs(model, alone)
            assert float(single[0]) == pytest.approx(float(together[b]), abs=1e-4)
            # the same row with extra right padding and a changed token under the padding
            padded = {k: torch.cat([v, v[:, -1:].repeat(1, 5)], 1) for k, v in alone.items()}
            padded["input_ids"][0, -5:] = 7
            padded["attention_mask"][0, -5:] = 0
            padded["response_mask"][0, -5:] = False
            assert float(sequence_logprobs(model, padded)[0][0]) == pytest.approx(float(single[0]), abs=1e-4)


def test_logprob_gradient_matches_a_finite_difference(tok) -> None:
    # llama: GPT-2's attention mask in transformers 4.x cannot be built in float64
    model = tiny_causal_lm(tok, arch="llama", d_model=32, max_positions=32, seed=3).double()
    batch = encode_prompt_response(tok, PROMPTS[:2], RESPONSES[:2], max_length=32)
    weight = model.model.layers[0].mlp.up_proj.weight
    direction = torch.randn(weight.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    total, _ = sequence_logprobs(model, batch)
    (grad,) = torch.autograd.grad(total.sum(), weight)
    h = 1e-3  # transformers 4.x returns llama's logits in float32 even for a float64 model
    with torch.no_grad():
        weight.add_(h * direction)
        up = float(sequence_logprobs(model, batch)[0].sum())
        weight.sub_(2 * h * direction)
        down = float(sequence_logprobs(model, batch)[0].sum())
        weight.add_(h * direction)
    assert float((grad * direction).sum()) == pytest.approx((up - down) / (2 * h), rel=1e-3, abs=1e-3)


def test_logprobs_reject_bad_batches(tok) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=32)
    batch = encode_prompt_response(tok, ["ab"], ["c"], max_length=8)
    with pytest.raises(ValueError, match="lacks 'response_mask'"):
        sequence_logprobs(model, {k: v for k, v in batch.items() if k != "response_mask"})
    with pytest.raises(ValueError, match="first token has no log-probability"):
        sequence_logprobs(model, {**batch, "response_mask": torch.ones_like(batch["response_mask"])})
    with pytest.raises(TypeError, match="response_mask must be bool"):
        sequence_logprobs(model, {**batch, "response_mask": batch["response_mask"].long()})
    with pytest.raises(ValueError, match="share one"):
        sequence_logprobs(model, {**batch, "attention_mask": batch["attention_mask"][:, :-1]})
