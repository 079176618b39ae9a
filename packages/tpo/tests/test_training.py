"""Preference lists as tensors on paperkit.lm models: log-ratios, step ids, training, TRL, bad input."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
import torch
from paperkit.lm import (
    TrainConfig,
    char_tokenizer,
    encode_prompt_response,
    sequence_logprobs,
    tiny_causal_lm,
    train_bpe_tokenizer,
)
from tpo.arith import ALPHABET, ArithProblem, corrupt_at_step, gold_solution, make_tree, split_problems
from tpo.data import PreferenceList, split_steps
from tpo.logprobs import encode_lists, policy_logprobs, response_step_ids, token_logratios
from tpo.losses import adaptive_step_weights, best_index
from tpo.metrics import mean_kendall_tau
from tpo.reproduce.config import Config
from tpo.training import (
    DPOObjective,
    DPOPLObjective,
    TPOObjective,
    check_lists,
    implicit_rewards,
    preference_loss,
    train_preference,
)

MAXLEN = 96


@pytest.fixture(scope="module")
def tok():
    return char_tokenizer(ALPHABET)


@pytest.fixture(scope="module")
def trees():
    rng = np.random.default_rng(0)
    return [make_tree(p, rng) for p in split_problems([20], 0, Config().spec)[0]]


def _models(tok, device, seed=0, noise=0.05):
    ref = tiny_causal_lm(tok, d_model=32, n_layer=1, n_head=2, max_positions=MAXLEN, seed=seed, device=device)
    pol = copy.deepcopy(ref)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for p in pol.parameters():
            p.add_(noise * torch.randn(p.shape, generator=gen).to(device))
    return pol, ref


def test_policy_logprobs_match_paperkit_sequence_logprobs(tok, trees, device):
    pol, _ = _models(tok, device)
    batch = encode_lists(tok, trees[:4], max_length=MAXLEN, device=device).flat()
    mine, hidden = policy_logprobs(pol, batch)
    _, theirs = sequence_logprobs(pol, batch)
    torch.testing.assert_close(mine, theirs, rtol=1e-6, atol=1e-6)
    assert hidden is not None and hidden.shape == (*batch["input_ids"].shape, 32)


def test_list_batch_rows_are_paperkit_encodings_and_step_ids_follow_the_text(tok, trees, device):
    lists = [trees[0], trees[1].subset([0, 1, 2])]  # a 5-list and a 3-list: two padding members
    b = encode_lists(tok, lists, max_length=MAXLEN, device=device)
    assert b.shape[:2] == (2, 5) and b.mask.tolist() == [[True] * 5, [True] * 3 + [False] * 2]
    assert not b.response_mask[1, 3:].any() and (b.step_ids[1, 3:] == 0).all()
    ref = encode_prompt_response(
        tok, [lists[0].prompt] * 5, list(lists[0].responses), max_length=MAXLEN, device=device
    )
    width = ref["input_ids"].shape[1]
    assert torch.equal(b.input_ids[0, :, :width], ref["input_ids"])
    assert torch.equal(b.response_mask[0, :, :width], ref["response_mask"])
    for j, text in enumerate(lists[0].responses):
        ids, steps = b.input_ids[0, j], b.step_ids[0, j]
        for k, step_text in enumerate(split_steps(text), start=1):
            tokens = ids[steps == k].tolist()
            if k == len(split_steps(text)):
                assert tokens[-1] == tok.eos_token_id  # the final eos closes the last step
                tokens = tokens[:-1]
            assert tok.decode(tokens) == step_text
        assert (steps[~b.response_mask[0, j]] == 0).all()  # prompt and padding are in no step


def test_step_ids_with_a_bpe_tokenizer_are_ordered_and_complete():
    texts = [gold_solution(p) for p in split_problems([50], 1, Config().spec)[0]]
    bpe = train_bpe_tokenizer(texts, vocab_size=80)
    for text, ids in zip(texts, response_step_ids(bpe, texts), strict=True):
        n_steps = len(split_steps(text))
        assert ids == sorted(ids) and set(ids) == set(range(1, n_steps + 1))
        assert len(ids) == len(bpe(text, add_special_tokens=False)["input_ids"]) + 1


def test_log_ratios_vanish_at_the_reference_and_outside_responses(tok, trees, device):
    pol, ref = _models(tok, device)
    b = encode_lists(tok, trees[:3], max_length=MAXLEN, device=device)
    ell, _ = token_logratios(ref, copy.deepcopy(ref), b, hidden=False)
    assert float(ell.detach().abs().max()) == 0.0
    ell, hidden = token_logratios(pol, ref, b)
    assert (ell[~b.response_mask] == 0).all() and ell[b.response_mask].abs().sum() > 0
    assert hidden is not None and hidden.shape[:3] == ell.shape


def test_shared_gold_prefix_gets_asr_weight_two_on_a_real_model(tok, device):
    p = ArithProblem((2, 3, 1, 4), ("+", "-", "+"))
    rng = np.random.default_rng(0)
    pl = PreferenceList(p.prompt, [gold_solution(p), corrupt_at_step(p, 3, rng, "off_by_one")], [1.0, 2 / 3])
    pol, _ = _models(tok, device)
    b = encode_lists(tok, [pl], max_length=MAXLEN, device=device)
    _, hidden = policy_logprobs(pol, b.flat())
    assert hidden is not None
    h = hidden.reshape(1, 2, b.shape[2], -1)
    w = adaptive_step_weights(h, b.step_ids, best_index(b.scores))
    torch.testing.assert_close(w[0, 0], torch.full((3,), 2.0, device=device))  # the reference: cos = 1
    torch.testing.assert_close(w[0, 1, :2], torch.full((2,), 2.0, device=device))  # identical steps 1-2
    assert float(w[0, 1, 2]) < 2.0  # the slipped step differs


def test_two_member_lists_tpo_equals_dpo_on_a_real_model(tok, trees, device):
    pol, ref = _models(tok, device)
    pairs = [t.subset([t.best, int(np.argmin(t.scores))]) for t in trees]
    b = encode_lists(tok, pairs, max_length=MAXLEN, device=device)
    dpo = preference_loss(pol, ref, b, DPOObjective(pair_sampling="best_vs_worst"))
    tpo = preference_loss(pol, ref, b, TPOObjective(use_asr=False, use_lambda=False))
    pl = preference_loss(pol, ref, b, DPOPLObjective())
    assert abs(float(dpo) - math.log(2)) > 1e-3  # the policy really differs from the reference
    torch.testing.assert_close(tpo, dpo, rtol=0, atol=1e-6)
    torch.testing.assert_close(pl, dpo, rtol=0, atol=1e-6)


@pytest.mark.slow  # 50 training steps; README "Tests" says what it checks
def test_training_raises_kendall_tau_on_its_trees(tok, trees, device):
    ref = tiny_causal_lm(tok, d_model=32, n_layer=1, n_head=2, max_positions=MAXLEN, seed=0, device=device)
    pol = copy.deepcopy(ref)
    b = encode_lists(tok, trees, max_length=MAXLEN, device=device)
    before = implicit_rewards(pol, ref, b)["plain"]
    assert float(before.abs().max()) == 0.0  # at θ = θ_ref every implicit reward is 0 (τ undefined)
    losses = train_preference(
        pol,
        ref,
        tok,
        trees,
        TPOObjective(),
        TrainConfig(steps=50, batch_size=4, lr=3e-3),
        max_length=MAXLEN,
        device=device,
    )
    after = implicit_rewards(pol, ref, b, asr=TPOObjective())
    assert len(losses) == 50 and np.mean(losses[-10:]) < losses[0]
    assert mean_kendall_tau(after["asr"], b.scores) > 0.5
    assert mean_kendall_tau(after["plain"], b.scores) > 0.3
    # the reference never moved
    fresh = tiny_causal_lm(tok, d_model=32, n_layer=1, n_head=2, max_positions=MAXLEN, seed=0, device=device)
    for p, q in zip(ref.parameters(), fresh.parameters(), strict=True):
        assert torch.equal(p, q)


def test_same_seed_same_training(tok, trees, device, deterministic):
    def run() -> list[float]:
        pol, ref = _models(tok, device)
        return train_preference(
            pol,
            ref,
            tok,
            trees,
            DPOObjective(),
            TrainConfig(steps=3, batch_size=4, lr=1e-3, seed=5),
            max_length=MAXLEN,
            device=device,
        )

    assert len(deterministic(run)) == 3


# ---------------------------------------------------------------- bad input


def test_empty_and_uninformative_lists_are_refused(tok, trees, device):
    pol, ref = _models(tok, device)
    cfg = TrainConfig(steps=1, batch_size=1)
    with pytest.raises(ValueError, match="no preference lists given"):
        train_preference(pol, ref, tok, [], TPOObjective(), cfg, max_length=MAXLEN, device=device)
    ties = PreferenceList("Q: 1+1\n", ["Step 1: 1+1=2\nAnswer: 2", "Step 1: 1+1=3\nAnswer: 3"], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"list 1 has only tied scores \[0.5, 0.5\]"):
        train_preference(
            pol, ref, tok, [trees[0], ties], TPOObjective(), cfg, max_length=MAXLEN, device=device
        )
    single = PreferenceList("Q: 1+1\n", ["Step 1: 1+1=2\nAnswer: 2"], [1.0])
    with pytest.raises(ValueError, match="list 0 has one response"):
        check_lists([single])
    with pytest.warns(UserWarning, match="dropped 1 lists"):
        assert len(check_lists([trees[0], ties], drop_uninformative=True)) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="nothing to learn"):
            check_lists([ties], drop_uninformative=True)
    with pytest.raises(TypeError, match="sequence of PreferenceList"):
        check_lists(trees[0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"lists\[0\] is a str"):
        check_lists(["not a list"])  # type: ignore[list-item]


def test_mismatched_tokenizers_and_models_are_refused(tok, trees, device):
    pol, ref = _models(tok, device)
    other = char_tokenizer(ALPHABET + "xyz")
    cfg = TrainConfig(steps=1, batch_size=1)
    with pytest.raises(ValueError, match="tokenizers differ"):
        train_preference(
            pol,
            ref,
            tok,
            trees,
            TPOObjective(),
            cfg,
            max_length=MAXLEN,
            device=device,
            reference_tokenizer=other,
        )
    ref_other = tiny_causal_lm(other, d_model=32, n_layer=1, n_head=2, max_positions=MAXLEN, device=device)
    with pytest.raises(ValueError, match="vocabulary of 33 tokens and the reference 36"):
        train_preference(pol, ref_other, tok, trees, TPOObjective(), cfg, max_length=MAXLEN, device=device)
    with pytest.raises(ValueError, match="separate frozen copy"):
        train_preference(pol, pol, tok, trees, TPOObjective(), cfg, max_length=MAXLEN, device=device)
    with pytest.raises(ValueError, match="exceeds the policy's context of 96"):
        train_preference(pol, ref, tok, trees, TPOObjective(), cfg, max_length=200, device=device)


def test_responses_longer_than_the_context_are_refused(tok, trees, device):
    pol, ref = _models(tok, device)
    long = PreferenceList("Q: 1+1\n", ["Step 1: 1+1=2\n" * 8 + "Answer: 2", "Answer: 3"], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"list 1, response 0 is 130 tokens .* not truncated"):
        train_preference(
            pol,
            ref,
            tok,
            [trees[0], long],
            TPOObjective(),
            TrainConfig(steps=1, batch_size=1),
            max_length=MAXLEN,
            device=device,
        )


def test_bad_objectives_and_configs_are_refused(tok, trees, device):
    pol, ref = _models(tok, device)
    with pytest.raises(TypeError, match="objective must be"):
        train_preference(pol, ref, tok, trees, "tpo", TrainConfig(steps=1, batch_size=1), max_length=MAXLEN)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="TrainConfig"):
        train_preference(pol, ref, tok, trees, TPOObjective(), {"steps": 1}, max_length=MAXLEN)  # type: ignore[arg-type]
    for bad in (
        {"beta": 0.0},
        {"beta": math.nan},
        {"step_weight": "cos"},
        {"label": "raw"},
        {"normalize": "x"},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            TPOObjective(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pair_sampling"):
        DPOObjective(pair_sampling="all")  # type: ignore[arg-type]


# ---------------------------------------------------------------- peer: TRL's DPOTrainer


@pytest.mark.slow  # importing trl and datasets costs more CPU than the rest of this file
def test_dpo_loss_matches_trl_dpo_trainer_on_the_same_batch(tok, trees, tmp_path):
    trl = pytest.importorskip("trl", reason="trl is in the 'bench' dependency group")
    datasets = pytest.importorskip("datasets")
    pol, ref = _models(tok, "cpu")
    pairs = [t.subset([t.best, int(np.argmin(t.scores))]) for t in trees[:6]]
    ours = preference_loss(
        pol,
        ref,
        encode_lists(tok, pairs, max_length=MAXLEN),
        DPOObjective(beta=0.1, pair_sampling="best_vs_worst"),
    )
    data = datasets.Dataset.from_dict(
        {  # TRL adds no bos: the literal "<bos>" is the same token our encoding starts with
            "prompt": ["<bos>" + t.prompt for t in pairs],
            "chosen": [t.responses[0] for t in pairs],
            "rejected": [t.responses[1] for t in pairs],
        }
    )
    args = trl.DPOConfig(
        output_dir=str(tmp_path),
        beta=0.1,
        report_to=[],
        per_device_train_batch_size=6,
        use_cpu=True,
        max_length=None,
        loss_type=["sigmoid"],
        disable_tqdm=True,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = trl.DPOTrainer(
            model=pol, ref_model=ref, args=args, train_dataset=data, processing_class=tok
        )
        batch = trainer.data_collator([trainer.train_dataset[i] for i in range(6)])
        theirs = trainer.compute_loss(trainer.model, batch)
    # TRL's fused LM head sums float32 per-token log-probs (totals ~ -140): agreement to float32 resolution
    assert float(theirs) == pytest.approx(float(ours), rel=1e-4)
