"""paperkit.lm generation: greedy equals a hand-written argmax loop, stop strings, seeded sampling."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperkit.lm import char_tokenizer, generate, generate_completions, tiny_causal_lm  # noqa: E402

ARCHS = ["gpt2", "llama"]
PROMPTS = ["abc", "a", "hij hij ab", "", "jihgfedcba"]


pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def tok() -> transformers.PreTrainedTokenizerFast:
    return char_tokenizer("abcdefghij ")


def sharp_model(tok, arch: str, device: str, seed: int = 0) -> torch.nn.Module:
    """A random model with scaled-up weights: peaked, varied next-token distributions (no near-ties)."""
    model = tiny_causal_lm(tok, arch=arch, d_model=32, max_positions=64, seed=seed, device=device)
    with torch.no_grad():
        for p in model.parameters():
            if p.ndim >= 2:
                p.mul_(6.0)
    return model


def argmax_loop(model: torch.nn.Module, tok, prompt: str, max_new_tokens: int, device: str) -> str:
    """Greedy decoding written out: one unpadded, uncached forward pass per new token."""
    ids = [tok.bos_token_id, *tok(prompt)["input_ids"]]
    new: list[int] = []
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits = model(torch.tensor([ids + new], device=device)).logits[0, -1]
            nxt = int(torch.argmax(logits))
            if nxt == tok.eos_token_id:
                break
            new.append(nxt)
    return tok.decode(new, skip_special_tokens=True)


@pytest.mark.parametrize("arch", ARCHS)
def test_greedy_equals_a_hand_written_argmax_loop(arch: str, tok, device: str) -> None:
    model = sharp_model(tok, arch, device)
    got = generate(model, tok, PROMPTS, max_new_tokens=15, device=device)  # one left-padded batch
    expected = [argmax_loop(model, tok, p, 15, device) for p in PROMPTS]
    assert got == expected
    assert len(set(got)) > 2 and max(map(len, got)) >= 5  # a non-trivial comparison
    assert generate(model, tok, PROMPTS, max_new_tokens=15, batch_size=2, device=device) == got


def test_finish_reasons_and_token_counts(tok, device: str) -> None:
    model = sharp_model(tok, "gpt2", device)
    done = generate_completions(model, tok, PROMPTS, max_new_tokens=15, device=device)
    for p, c in zip(PROMPTS, done, strict=True):
        assert c.prompt_tokens == 1 + len(p)
        assert c.completion_tokens <= 15
        if c.finish_reason == "length":
            assert c.completion_tokens == 15
        else:
            assert c.finish_reason == "stop" and c.completion_tokens == len(c.text) + 1  # + eos
    assert {c.finish_reason for c in done} == {"stop", "length"}  # this model exercises both


def test_stop_strings_cut_before_the_first_match(tok, device: str) -> None:
    model = sharp_model(tok, "llama", device, seed=1)
    full = generate(model, tok, PROMPTS, max_new_tokens=20, device=device)
    b = max(range(len(full)), key=lambda i: len(full[i]))
    text = full[b]
    assert len(text) >= 8
    early, late = text[2:4], text[5:8]
    assert text.find(early) < text.find(late)
    cut = generate(model, tok, [PROMPTS[b]], max_new_tokens=20, stop=[late, early], device=device)
    assert cut == [text[: text.find(early)]]
    (c,) = generate_completions(model, tok, [PROMPTS[b]], max_new_tokens=20, stop=[late], device=device)
    assert c.text == text[: text.find(late)] and c.finish_reason == "stop"
    assert c.completion_tokens < 20  # generation stopped early, it did not just trim
    assert generate(model, tok, [PROMPTS[b]], max_new_tokens=20, stop=["zzz"], device=device) == [text]


@pytest.mark.parametrize("temperature", [1.0, 2.0])
def test_sampling_follows_the_tempered_softmax(temperature: float, tok, device: str) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=16, seed=0, device=device)
    with torch.no_grad():
        model.transformer.ln_f.weight.mul_(6.0)  # logits x 6: peaked but spread (max p ~ 0.5 at T = 1)
        ids = torch.tensor([[tok.bos_token_id, *tok("ab")["input_ids"]]], device=device)
        probs = torch.softmax(model(ids).logits[0, -1].double() / temperature, -1).cpu().numpy()
    n = 2000  # the tolerance below is 4 binomial SEs at p = 0.5: 0.045, far under the checked max p < 0.6
    out = generate(model, tok, ["ab"] * n, max_new_tokens=1, temperature=temperature, seed=0, batch_size=n)
    counts = np.zeros(len(tok))
    for text in out:  # one character = one token; "" = a special token (eos/pad/bos/unk)
        counts[tok.convert_tokens_to_ids(text) if text else 0] += 1
    expected = probs.copy()
    expected[0] = probs[:4].sum()
    expected[1:4] = 0
    assert probs.max() < 0.6 and (probs > 0.03).sum() >= 4  # a distribution worth testing
    assert np.abs(counts / n - expected).max() < 4 * np.sqrt(0.25 / n)


def test_sampling_is_seeded_and_leaves_the_global_rng_alone(tok, device: str) -> None:
    model = sharp_model(tok, "gpt2", device)
    state = torch.random.get_rng_state()
    a = generate(model, tok, PROMPTS, max_new_tokens=10, temperature=1.0, seed=3, device=device)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert generate(model, tok, PROMPTS, max_new_tokens=10, temperature=1.0, seed=3, device=device) == a
    assert generate(model, tok, PROMPTS, max_new_tokens=10, temperature=1.0, seed=4, device=device) != a


def test_generate_rejects_bad_input(tok) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=16)
    with pytest.raises(ValueError, match="prompt 1 is 11 tokens and max_new_tokens=6"):
        generate(model, tok, ["a", "abcdefghij"], max_new_tokens=6)
    with pytest.raises(ValueError, match="max_new_tokens must be an int >= 1"):
        generate(model, tok, ["a"], max_new_tokens=0)
    with pytest.raises(ValueError, match="temperature must be a number >= 0"):
        generate(model, tok, ["a"], max_new_tokens=1, temperature=-1.0)
    with pytest.raises(ValueError, match="stop strings must be non-empty"):
        generate(model, tok, ["a"], max_new_tokens=1, stop=[""])
    with pytest.raises(TypeError, match="prompts must be a sequence of strings"):
        generate(model, tok, "abc", max_new_tokens=1)
    with pytest.raises(ValueError, match="the model is on cpu"):
        generate(model, tok, ["a"], max_new_tokens=1, device="meta")
    assert generate(model, tok, [], max_new_tokens=3) == []


# ---------------------------------------------------------------- top-k / top-p


def _brute_support(probs: list[float], top_k: int | None, top_p: float | None) -> set[int]:
    """The kept tokens, by the definition: the k most probable, then the shortest most-probable prefix
    whose mass reaches p (renormalised over what top-k kept)."""
    order = sorted(range(len(probs)), key=lambda i: -probs[i])
    kept = order[:top_k] if top_k else order
    if top_p is None:
        return set(kept)
    total = sum(probs[i] for i in kept)
    out, mass = [], 0.0
    for i in kept:
        out.append(i)
        mass += probs[i] / total
        if mass >= top_p:
            break
    return set(out)


def test_filter_logits_keeps_exactly_the_brute_force_set(torch_gen) -> None:
    from paperkit.lm.generation import filter_logits

    logits = torch.randn(40, 9, generator=torch_gen, dtype=torch.float64).cpu() * 2
    for top_k, top_p in [
        (3, None),
        (None, 0.5),
        (5, 0.7),
        (1, None),
        (None, 0.05),
        (0, 1.0),
        (9, None),
        (None, 0.0),
    ]:
        kept = torch.isfinite(filter_logits(logits, top_k, top_p))
        for row in range(40):
            probs = torch.softmax(logits[row], -1).tolist()
            assert set(torch.nonzero(kept[row]).flatten().tolist()) == _brute_support(probs, top_k, top_p)


def test_sampled_support_equals_the_top_k_and_nucleus_sets(tok, device: str) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=16, seed=0, device=device)
    with torch.no_grad():
        ids = torch.tensor([[tok.bos_token_id, *tok("ab")["input_ids"]]], device=device)
        probs = torch.softmax(model(ids).logits[0, -1].double(), -1).cpu().tolist()
    cum = sorted(probs, reverse=True)
    cum = [sum(cum[: i + 1]) for i in range(len(cum))]
    top_p = (cum[5] + cum[6]) / 2  # halfway between two prefix masses: a 7-token nucleus, far from a tie
    n = 600
    for top_k, p in [(4, None), (None, top_p)]:
        done = generate_completions(
            model,
            tok,
            ["ab"] * n,
            max_new_tokens=1,
            temperature=1.0,
            seed=1,
            batch_size=n,
            top_k=top_k,
            top_p=p,
        )
        seen = {c.token_ids[0] for c in done}
        assert seen == _brute_support(probs, top_k, p)
        assert len(seen) == (4 if top_k else 7)


def test_top_k_and_top_p_are_validated(tok) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=16)
    with pytest.raises(ValueError, match="top_k must be None or an int >= 0"):
        generate(model, tok, ["a"], max_new_tokens=1, temperature=1.0, top_k=-1)
    with pytest.raises(ValueError, match=r"top_p must be None or a number in \[0, 1\]"):
        generate(model, tok, ["a"], max_new_tokens=1, temperature=1.0, top_p=-0.1)
    with pytest.raises(ValueError, match="top_p must be"):
        generate_completions(model, tok, ["a"], max_new_tokens=1, top_p=1.5)
