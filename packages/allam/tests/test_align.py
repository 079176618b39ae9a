"""The alignment stage against independent references: the DPO loss recomputed by hand (token by token,
plain math), log 2 at pi = pi_ref, SFT's loss as the mean response NLL; data splits and bad inputs."""

from __future__ import annotations

import copy
import math

import pytest
import torch
from allam.align import (
    AlignConfig,
    Preference,
    align_model,
    align_probes,
    dpo,
    dpo_value,
    preferences,
    sft,
    split_facts,
)
from allam.data import STYLES, qa_probes, render, translation_probes


def _hand_logp(model, tok, prompt: str, response: str) -> float:
    """log p(response + eos | bos + prompt), one forward pass per scored token (no batching, no masks)."""
    p = tok(prompt, add_special_tokens=False)["input_ids"]
    r = tok(response, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    ids = [tok.bos_token_id, *p]
    total = 0.0
    with torch.no_grad():
        for t in r:
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1].double()
            total += float(logits[t] - torch.logsumexp(logits, 0))
            ids.append(t)
    return total


def _perturbed(model, seed: int):
    m = copy.deepcopy(model)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=g))
    return m


def test_dpo_loss_matches_a_hand_computation(sub, tiny):
    probes = align_probes(sub.world.facts[:6], sub.world)
    prefs = preferences(probes, seed=0)
    policy, ref, beta = _perturbed(tiny, 1), _perturbed(tiny, 2), 0.3
    want = 0.0
    for p in prefs:
        h = (
            _hand_logp(policy, sub.tok_a, p.prompt, p.chosen) - _hand_logp(ref, sub.tok_a, p.prompt, p.chosen)
        ) - (
            _hand_logp(policy, sub.tok_a, p.prompt, p.rejected)
            - _hand_logp(ref, sub.tok_a, p.prompt, p.rejected)
        )
        want += math.log1p(math.exp(-beta * h))  # -log sigma(beta h)
    got = dpo_value(policy, ref, sub.tok_a, prefs, beta=beta)
    assert got == pytest.approx(want / len(prefs), rel=1e-4)
    assert dpo_value(tiny, copy.deepcopy(tiny), sub.tok_a, prefs, beta=beta) == pytest.approx(math.log(2))


def test_dpo_starts_at_log2_and_widens_the_margin(sub, tiny):
    probes = align_probes(sub.world.facts[:8], sub.world)
    prefs = preferences(probes, seed=0)
    model, ref = copy.deepcopy(tiny), copy.deepcopy(tiny)
    losses = dpo(model, ref, sub.tok_a, prefs, beta=0.5, steps=15, lr=3e-3, batch_size=len(prefs))
    assert losses[0] == pytest.approx(math.log(2), abs=1e-6)
    assert dpo_value(model, ref, sub.tok_a, prefs, beta=0.5) < 0.9 * math.log(2)


def test_sft_first_loss_is_the_mean_response_nll(sub, tiny):
    probes = align_probes(sub.world.facts[:3], sub.world, "A")
    model = copy.deepcopy(tiny)
    nll = [-_hand_logp(tiny, sub.tok_a, p.prompt, p.answer) for p in probes]
    n = [len(sub.tok_a(p.answer, add_special_tokens=False)["input_ids"]) + 1 for p in probes]
    losses = sft(model, sub.tok_a, probes, steps=20, lr=5e-3, batch_size=len(probes))
    assert losses[0] == pytest.approx(sum(nll) / sum(n), rel=1e-4)
    assert losses[-1] < 0.5 * losses[0]


def test_split_probes_and_align_methods(sub, tiny):
    w = sub.world
    a, held = split_facts(w, 0.5, seed=0)
    assert set(a).isdisjoint(held) and len(a) + len(held) == len(w.facts)
    assert split_facts(w, 0.5, seed=0) == (a, held)
    ps = align_probes(a, w)
    assert {p.fact for p in ps} == set(a)  # every alignment fact is asked in a language that states it
    assert len(ps) == len(a) + sum(f.group == "AB" for f in a)  # "both" facts in both languages
    assert all(p.prompt.startswith("question") for p in ps if p.fact.group == "A")
    assert STYLES == ("statement", "question")
    q = qa_probes(w.of("B")[:1], "B", w, style="question")[0]
    assert q.answer in q.candidates and q.prompt.endswith(":")
    cfg = AlignConfig(steps=2, batch_size=4)
    m1, l1 = align_model(tiny, sub.tok_a, w, a, cfg, method="sft", seed=0)
    m2, l2 = align_model(tiny, sub.tok_a, w, a, cfg, method="sft_dpo", seed=0)
    assert len(l1["sft"]) == 4 and len(l2["sft"]) == 2 and len(l2["dpo"]) == 2  # equal updates
    assert l1["sft"][:2] == l2["sft"]  # the same SFT start
    assert m1 is not tiny and m2 is not tiny


def test_translation_probes_put_the_a_sentence_in_context(sub):
    w = sub.world
    for p in translation_probes(w.of("A")[:3], w):
        a_sentence, b_prompt = p.prompt.split(" = ")
        assert a_sentence == render(p.fact, "A", 0)
        assert b_prompt + p.answer + " ειναι ." == render(p.fact, "B", 0)


def test_bad_alignment_inputs(sub, tiny):
    for kw, match in (({"beta": 0.0}, "beta"), ({"steps": 0}, "steps"), ({"align_frac": 1.0}, "align_frac"),
                      ({"lr": float("nan")}, "lr")):  # fmt: skip
        with pytest.raises(ValueError, match=match):
            AlignConfig(**kw)
    with pytest.raises(TypeError, match="beta"):
        AlignConfig(beta="0.1")
    with pytest.raises(ValueError, match="same response"):
        Preference("q", " a", " a")
    with pytest.raises(TypeError, match="chosen"):
        Preference("q", 1, " a")
    with pytest.raises(ValueError, match="prefs"):
        dpo(tiny, tiny, sub.tok_a, [], beta=0.1, steps=1, lr=1e-3)
    with pytest.raises(ValueError, match="method"):
        align_model(tiny, sub.tok_a, sub.world, sub.world.facts, AlignConfig(), method="ppo", seed=0)
    with pytest.raises(TypeError, match="config"):
        align_model(tiny, sub.tok_a, sub.world, sub.world.facts, {"steps": 1}, method="sft", seed=0)
    with pytest.raises(ValueError, match="style"):
        qa_probes(sub.world.facts[:1], "A", sub.world, style="chat")
    with pytest.raises(ValueError, match="align_frac"):
        split_facts(sub.world, 0.0, seed=0)
