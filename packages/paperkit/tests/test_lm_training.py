"""paperkit.lm training: the schedule in closed form, SFT memorises a tiny task, determinism, bad configs."""

from __future__ import annotations

import itertools
import math
import random

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperkit.lm import (  # noqa: E402
    TrainConfig,
    bucketed_batches,
    char_tokenizer,
    generate,
    index_batches,
    optimizer_and_schedule,
    tiny_causal_lm,
    train_causal_lm,
)

ALPHABET = "abcdefgh"
_rng = random.Random(0)
PROMPTS = ["".join(_rng.choice(ALPHABET) for _ in range(4)) + "=" for _ in range(8)]
RESPONSES = ["".join(_rng.choice(ALPHABET) for _ in range(4)) for _ in range(8)]


pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


@pytest.fixture(scope="module")
def tok() -> transformers.PreTrainedTokenizerFast:
    return char_tokenizer(ALPHABET + "=")


def test_schedule_is_linear_warmup_then_cosine_to_zero() -> None:
    cfg = TrainConfig(steps=10, batch_size=1, lr=0.5, warmup_steps=3)
    opt, sched = optimizer_and_schedule([torch.nn.Parameter(torch.zeros(2))], cfg)
    assert isinstance(opt, torch.optim.AdamW) and isinstance(sched, torch.optim.lr_scheduler.LambdaLR)
    assert opt.param_groups[0]["weight_decay"] == cfg.weight_decay
    seen = []
    for _ in range(cfg.steps + 1):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    expected = [0.5 * s / 3 for s in (1, 2, 3)] + [0.25 * (1 + math.cos(math.pi * k / 7)) for k in range(8)]
    assert seen == pytest.approx(expected, abs=1e-12)
    assert seen[-1] == pytest.approx(0.0, abs=1e-12)  # zero one step past the last
    assert all(lr > 0 for lr in seen[:-1])


def test_schedule_without_warmup_starts_at_the_peak() -> None:
    opt, _ = optimizer_and_schedule([torch.nn.Parameter(torch.zeros(1))], TrainConfig(steps=4, batch_size=1))
    assert opt.param_groups[0]["lr"] == pytest.approx(3e-4)


# The Llama run is slow (issue 17's 30 CPU-s budget): its architecture is covered by default through the
# greedy-decoding and model tests; memorisation runs on GPT-2 by default and on both with --run-slow.
@pytest.mark.parametrize("arch", ["gpt2", pytest.param("llama", marks=pytest.mark.slow)])
def test_sft_memorises_a_tiny_task(arch: str, tok, device: str) -> None:
    model = tiny_causal_lm(tok, arch=arch, d_model=32, max_positions=32, seed=0, device=device)
    before = generate(model, tok, PROMPTS, max_new_tokens=6, device=device)
    assert sum(b == r for b, r in zip(before, RESPONSES, strict=True)) == 0
    cfg = TrainConfig(steps=60, batch_size=8, lr=1e-2, warmup_steps=5, seed=0)
    losses = train_causal_lm(
        model, tok, PROMPTS, RESPONSES, cfg, max_length=16, device=device, progress=False
    )
    assert len(losses) == 60 and all(math.isfinite(x) for x in losses)
    assert losses[0] == pytest.approx(math.log(len(tok)), rel=0.15)  # a fresh model is near uniform
    assert sum(losses[-5:]) / 5 < 0.1 * losses[0]
    assert not model.training  # mode restored
    after = generate(model, tok, PROMPTS, max_new_tokens=6, device=device)
    assert after == RESPONSES


def test_sft_is_deterministic_and_seeded(tok, device: str) -> None:
    def run(seed: int) -> list[float]:
        model = tiny_causal_lm(tok, d_model=32, max_positions=32, seed=0, device=device)
        cfg = TrainConfig(steps=6, batch_size=3, lr=1e-2, seed=seed)
        return train_causal_lm(
            model, tok, PROMPTS, RESPONSES, cfg, max_length=16, device=device, progress=False
        )

    state = torch.random.get_rng_state()
    a = run(0)
    assert torch.equal(torch.random.get_rng_state(), state), "training changed the global RNG"
    assert run(0) == a
    assert run(1) != a  # another seed draws other minibatches


def test_sft_rejects_bad_input(tok) -> None:
    model = tiny_causal_lm(tok, d_model=32, max_positions=32)
    cfg = TrainConfig(steps=1, batch_size=1)
    with pytest.raises(ValueError, match="pair 0 is 11 tokens long"):
        train_causal_lm(model, tok, PROMPTS[:1], RESPONSES[:1], cfg, max_length=8, progress=False)
    with pytest.raises(TypeError, match="config must be a TrainConfig"):
        train_causal_lm(model, tok, PROMPTS, RESPONSES, {"steps": 1}, max_length=16)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the model is on cpu"):
        train_causal_lm(model, tok, PROMPTS, RESPONSES, cfg, max_length=16, device="meta")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"steps": 0}, ValueError, "steps must be >= 1"),
        ({"batch_size": 0}, ValueError, "batch_size must be >= 1"),
        ({"lr": 0.0}, ValueError, "lr must be a positive finite number"),
        ({"lr": math.nan}, ValueError, "lr must be a positive finite number"),
        ({"weight_decay": -0.1}, ValueError, "weight_decay must be >= 0"),
        ({"warmup_steps": 11}, ValueError, r"warmup_steps must be in \[0, steps=10\]"),
        ({"grad_clip": 0.0}, ValueError, "grad_clip must be > 0"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"steps": 2.5}, TypeError, "steps must be an int"),
        ({"lr": "1e-3"}, TypeError, "lr must be a number"),
        ({"length_buckets": 0}, ValueError, "length_buckets must be >= 1"),
    ],
)
def test_train_config_validates(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        TrainConfig(**{"steps": 10, "batch_size": 2, **kwargs})


def test_train_config_is_frozen() -> None:
    cfg = TrainConfig(steps=1, batch_size=1, grad_clip=math.inf)
    with pytest.raises(AttributeError):
        cfg.steps = 2  # type: ignore[misc]


def test_index_batches_cover_every_example_once_per_epoch():
    batches = index_batches(7, 3, torch.Generator().manual_seed(5))
    first = torch.cat([next(batches) for _ in range(7)])  # 21 indices = 3 whole epochs
    assert first.dtype == torch.long and first.shape == (21,)
    for epoch in first.view(3, 7):
        assert sorted(epoch.tolist()) == list(range(7))
    assert not torch.equal(first[:7], first[7:14])  # a fresh permutation each epoch
    again = index_batches(7, 3, torch.Generator().manual_seed(5))
    assert torch.equal(torch.cat([next(again) for _ in range(7)]), first)


def test_index_batches_refuse_empty_input():
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        next(index_batches(5, 0, torch.Generator()))


def test_bucketed_batches_group_lengths_and_keep_epochs():
    lengths = torch.tensor([5, 1, 9, 3, 7, 2, 8, 4, 6, 10, 11, 12])
    plain = index_batches(12, 3, torch.Generator().manual_seed(2))
    same = bucketed_batches(lengths, 3, 1, torch.Generator().manual_seed(2))
    assert all(torch.equal(next(plain), next(same)) for _ in range(8))  # buckets=1: index_batches
    got = bucketed_batches(lengths, 3, 4, torch.Generator().manual_seed(2))
    batches = [next(got) for _ in range(8)]  # two pools of 4 batches = two epochs
    for pool in (batches[:4], batches[4:]):
        assert sorted(torch.cat(pool).tolist()) == list(range(12))
        spans = sorted((int(lengths[b].min()), int(lengths[b].max())) for b in pool)
        assert all(hi < lo2 for (_, hi), (lo2, _) in itertools.pairwise(spans))  # disjoint length ranges
    assert [sorted(b.tolist()) for b in batches[:4]] != [sorted(b.tolist()) for b in batches[4:]]


@pytest.mark.parametrize(
    ("args", "error", "fragment"),
    [
        ((torch.ones(2, 3), 2, 2), ValueError, "1-D"),
        ((torch.ones(6), 2, 0), ValueError, "buckets"),
        ((torch.ones(6), 2, True), TypeError, "buckets"),
        ((torch.ones(6), 0, 2), ValueError, "batch_size"),
    ],
)
def test_bucketed_batches_refuses_bad_arguments_at_the_call(args, error, fragment) -> None:
    with pytest.raises(error, match=fragment):
        bucketed_batches(*args, torch.Generator().manual_seed(0))
