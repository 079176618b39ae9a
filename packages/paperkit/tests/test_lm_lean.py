"""paperkit.lm's lean GPT-2 training path against Hugging Face's forward; the vectorised encoding and the
Rust-tokenizer fast path against row-by-row references; ``drop_long``."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperkit.lm import (  # noqa: E402
    TrainConfig,
    char_tokenizer,
    encode_prompt_response,
    optimizer_and_schedule,
    sequence_logprobs,
    tiny_causal_lm,
    train_causal_lm,
)
from paperkit.lm.lean import check_lean_gpt2, gpt2_hidden, gpt2_response_nll  # noqa: E402
from paperkit.lm.scoring import token_ids  # noqa: E402

pytestmark = pytest.mark.usefixtures("torch_one_thread")

ALPHABET = "abcdefgh "
_rng = random.Random(3)
PROMPTS = ["".join(_rng.choice(ALPHABET) for _ in range(_rng.randint(0, 12))) for _ in range(12)]
RESPONSES = ["".join(_rng.choice("abcz") for _ in range(_rng.randint(0, 5))) for _ in range(12)]


@pytest.fixture(scope="module")
def tok() -> transformers.PreTrainedTokenizerFast:
    return char_tokenizer(ALPHABET + "=")


def _model(tok, device: str = "cpu", **kw):  # type: ignore[no-untyped-def]
    return tiny_causal_lm(tok, n_layer=2, n_head=2, d_model=16, max_positions=32, seed=1, device=device, **kw)


def _trained_a_little(tok):  # type: ignore[no-untyped-def]
    """A model whose LayerNorm gains and biases have moved off their initial 1 and 0 (a test on a fresh
    model would not see a mixed-up gain or bias)."""
    model = _model(tok)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim == 1:
                p.add_(0.3 * torch.randn(p.shape, generator=torch.Generator().manual_seed(len(name))))
    return model


def test_hidden_states_equal_hugging_face_on_real_tokens(tok, device: str) -> None:
    model = _trained_a_little(tok).to(device)
    batch = encode_prompt_response(tok, PROMPTS, RESPONSES, max_length=32, device=device)
    out = model(**{k: batch[k] for k in ("input_ids", "attention_mask")}, output_hidden_states=True)
    real = batch["attention_mask"].bool()
    ours = gpt2_hidden(model, batch["input_ids"])
    assert torch.allclose(ours[real], out.hidden_states[-1][real], atol=1e-5)
    logits = ours @ model.lm_head.weight.T
    assert torch.allclose(logits[real], out.logits[real], atol=1e-5)


def test_response_nll_and_its_gradient_equal_the_hf_loss(tok) -> None:
    model = _trained_a_little(tok)
    batch = encode_prompt_response(tok, PROMPTS, RESPONSES, max_length=32)
    _, per_token = sequence_logprobs(model, batch)
    ref = -per_token.sum() / batch["response_mask"].sum()
    ours = gpt2_response_nll(model, batch["input_ids"], batch["response_mask"])
    assert ours.item() == pytest.approx(ref.item(), rel=1e-6)
    params = list(model.parameters())
    g_ref = torch.autograd.grad(ref, params)
    g_ours = torch.autograd.grad(ours, params)
    for (name, _), a, b in zip(model.named_parameters(), g_ref, g_ours, strict=True):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4), name


def test_lean_training_follows_the_hf_training(tok) -> None:
    """Same data, config and init: the two paths' losses agree to rounding over the first steps (they part
    slowly as rounding compounds), and both learn."""
    cfg = TrainConfig(steps=30, batch_size=4, lr=1e-2, warmup_steps=2, seed=0)
    hf = train_causal_lm(_model(tok), tok, PROMPTS, RESPONSES, cfg, max_length=32, progress=False)
    lean = train_causal_lm(
        _model(tok), tok, PROMPTS, RESPONSES, cfg, max_length=32, progress=False, forward="lean"
    )
    assert lean[:5] == pytest.approx(hf[:5], rel=1e-4)
    assert sum(lean[-5:]) < 0.6 * sum(lean[:5]) and sum(hf[-5:]) < 0.6 * sum(hf[:5])
    again = train_causal_lm(
        _model(tok), tok, PROMPTS, RESPONSES, cfg, max_length=32, progress=False, forward="lean"
    )
    assert again == lean  # seeded: bit for bit


def test_lean_refuses_models_it_would_not_reproduce(tok) -> None:
    check_lean_gpt2(_model(tok))
    with pytest.raises(ValueError, match="GPT2LMHeadModel"):
        check_lean_gpt2(_model(tok, arch="llama"))
    for field, value, fragment in (
        ("resid_pdrop", 0.1, "dropout"),
        ("activation_function", "relu", "tanh GELU"),
        ("scale_attn_by_inverse_layer_idx", True, "1/sqrt"),
    ):
        model = _model(tok)
        setattr(model.config, field, value)
        with pytest.raises(ValueError, match=fragment):
            check_lean_gpt2(model)
        with pytest.raises(ValueError, match="forward='lean'"):
            train_causal_lm(
                model, tok, PROMPTS, RESPONSES, TrainConfig(steps=1, batch_size=2), max_length=32,
                progress=False, forward="lean",
            )  # fmt: skip
    with pytest.raises(ValueError, match="forward"):
        train_causal_lm(
            _model(tok), tok, PROMPTS, RESPONSES, TrainConfig(steps=1, batch_size=2), max_length=32,
            progress=False, forward="fast",
        )  # fmt: skip


def test_response_nll_refuses_bad_batches(tok) -> None:
    model = _model(tok)
    ids = torch.ones((2, 5), dtype=torch.long)
    mask = torch.zeros((2, 5), dtype=torch.bool)
    mask[:, -1] = True
    assert gpt2_response_nll(model, ids, mask).ndim == 0
    for bad_ids, bad_mask, fragment in (
        (ids.float(), mask, "int64"),
        (ids[0], mask, "int64"),
        (ids, mask.long(), "bool"),
        (ids, mask[:, :3], "shaped like ids"),
        (
            torch.ones((2, 40), dtype=torch.long),
            torch.zeros((2, 40), dtype=torch.bool),
            "more than the model's 32",
        ),
    ):
        with pytest.raises(ValueError, match=fragment):
            gpt2_response_nll(model, bad_ids, bad_mask)
    with pytest.raises(ValueError, match="GPT2LMHeadModel"):
        gpt2_response_nll(_model(tok, arch="llama"), ids, mask)


def test_fused_optimizer_is_asked_for_by_name() -> None:
    p = [torch.nn.Parameter(torch.zeros(3))]
    assert optimizer_and_schedule(p, TrainConfig(steps=2, batch_size=1), fused=True)[0].defaults["fused"]
    assert not optimizer_and_schedule(p, TrainConfig(steps=2, batch_size=1))[0].defaults.get("fused")
    with pytest.raises(TypeError, match="fused"):
        optimizer_and_schedule(p, TrainConfig(steps=2, batch_size=1), fused=1)  # type: ignore[arg-type]


def _rows_one_by_one(tok, prompts, responses):  # type: ignore[no-untyped-def]
    """The layout of encode_prompt_response built one row at a time (the reference)."""
    p_ids = [tok(p, add_special_tokens=False)["input_ids"] for p in prompts]
    r_ids = [tok(r, add_special_tokens=False)["input_ids"] for r in responses]
    width = max(2 + len(p) + len(r) for p, r in zip(p_ids, r_ids, strict=True))
    ids = torch.zeros((len(prompts), width), dtype=torch.long)  # pad id 0
    attention = torch.zeros_like(ids)
    response = torch.zeros_like(ids, dtype=torch.bool)
    for b, (p, r) in enumerate(zip(p_ids, r_ids, strict=True)):
        row = [1, *p, *r, 2]  # bos, eos
        ids[b, : len(row)] = torch.tensor(row)
        attention[b, : len(row)] = 1
        response[b, 1 + len(p) : len(row)] = True
    return {"input_ids": ids, "attention_mask": attention, "response_mask": response}


def test_vectorised_encoding_equals_rows_built_one_by_one(tok) -> None:
    rng = random.Random(0)
    for _ in range(30):
        n = rng.randint(1, 5)
        prompts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6))) for _ in range(n)]
        responses = ["".join(rng.choice("abz") for _ in range(rng.randint(0, 4))) for _ in range(n)]
        got = encode_prompt_response(tok, prompts, responses, max_length=64)
        want = _rows_one_by_one(tok, prompts, responses)
        for key, value in want.items():
            assert got[key].dtype == value.dtype and torch.equal(got[key], value), (key, prompts, responses)


def test_token_ids_fast_path_equals_the_wrapper_and_ignores_a_left_padding_state(tok) -> None:
    texts = ["abc", "", "hgf ea", "zz"]
    want = [list(x) for x in tok(texts, add_special_tokens=False)["input_ids"]]
    assert token_ids(tok, texts) == want
    padded = char_tokenizer("ab")
    padded(["a", "abab"], padding=True)  # may leave padding switched on in the Rust tokenizer
    assert token_ids(padded, ["a", "abab"]) == [[4], [4, 5, 4, 5]]


def test_drop_long_leaves_out_the_pairs_that_do_not_fit(tok) -> None:
    prompts, responses = ["ab", "abcdefgh", "a", "hh"], ["a", "abc", "", "b"]
    got = encode_prompt_response(tok, prompts, responses, max_length=6, drop_long=True)
    want = _rows_one_by_one(tok, ["ab", "a", "hh"], ["a", "", "b"])
    assert all(torch.equal(got[k], want[k]) for k in want)
    with pytest.raises(ValueError, match="max_length=6"):
        encode_prompt_response(tok, prompts, responses, max_length=6)
    with pytest.raises(ValueError, match="no pair fits max_length=2"):
        encode_prompt_response(tok, prompts, responses, max_length=2, drop_long=True)
    with pytest.raises(TypeError, match="drop_long"):
        encode_prompt_response(tok, prompts, responses, max_length=6, drop_long="yes")  # type: ignore[arg-type]
