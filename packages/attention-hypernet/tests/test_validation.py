"""Bad input at every public entry point: each raises TypeError/ValueError naming the argument."""

from __future__ import annotations

import attention_hypernet as ah
import numpy as np
import paperkit
import pytest
import torch
from attention_hypernet import (
    FuzzyLogic,
    GeneratedNetwork,
    HyperAttention,
    RelativePositionBias,
    SRaven,
    TrainConfig,
    Transformer,
)

NAN = float("nan")
RNG = np.random.default_rng(0)
X = torch.zeros(2, 4, 8)
I64 = torch.zeros(3, 3, dtype=torch.long)


def _att(**kw):
    return HyperAttention(8, 2, 8, 8, **kw)


def _model():
    return Transformer(5, 1, d_model=8, n_layers=1, n_heads=2, d_qk=4, d_v=4, d_mlp=8)


def _net(**kw):
    base = {
        "w1": torch.zeros(1, 2, 3, 4, 5),
        "b1": torch.zeros(1, 2, 3, 4),
        "w2": torch.zeros(1, 2, 3, 6, 4),
        "b2": torch.zeros(6),
        "act": "relu",
    }
    return GeneratedNetwork(**{**base, **kw})


def _rpb(**kw):
    return ah.relative_position_bucket(
        **{"relative_position": I64, "bidirectional": False, "num_buckets": 8, "max_distance": 8, **kw}
    )


LOGIC = FuzzyLogic()
CFG = TrainConfig(steps=4, warmup=1, d_model=8, n_heads=2, d_qk=4, d_v=4, d_mlp=8, n_layers=1, batch_size=4)
LATENTS = np.zeros((2, 2, 4), dtype=bool)

CASES = {
    # attention
    "HyperAttention d_model bool": (lambda: HyperAttention(True, 2, 8, 8), TypeError, "d_model"),
    "HyperAttention n_heads 0": (lambda: HyperAttention(8, 0, 8, 8), ValueError, "n_heads"),
    "HyperAttention d_v divisible": (lambda: HyperAttention(8, 3, 6, 8), ValueError, "d_v must be divisible"),
    "HyperAttention d_qk negative": (lambda: HyperAttention(8, 2, -2, 8), ValueError, "d_qk"),
    "HyperAttention norm unknown": (lambda: _att(norm="relu"), ValueError, "norm"),
    "HyperAttention value_net unknown": (lambda: _att(value_net="mlp"), ValueError, "value_net"),
    "HyperAttention eps nan": (lambda: _att(eps=NAN), ValueError, "eps"),
    "HyperAttention bias int": (lambda: _att(bias=1), TypeError, "bias"),
    "HyperAttention device unknown": (lambda: _att(device="tpu9"), ValueError, "device"),
    "HyperAttention device type": (lambda: _att(device=0), TypeError, "device"),
    "HyperAttention dtype int": (lambda: _att(dtype=torch.int64), TypeError, "dtype"),
    "HyperAttention x numpy": (lambda: _att()(np.zeros((2, 4, 8))), TypeError, "x must be a Tensor"),
    "HyperAttention x width": (
        lambda: _att()(torch.zeros(2, 4, 7)),
        ValueError,
        "x must be an array of shape",
    ),
    "HyperAttention x nan": (lambda: _att()(torch.full((2, 4, 8), NAN)), ValueError, "x must be finite"),
    "HyperAttention x inf": (
        lambda: _att()(torch.full((2, 4, 8), float("inf"))),
        ValueError,
        "x must be finite",
    ),
    "HyperAttention x empty": (lambda: _att()(torch.zeros(2, 0, 8)), ValueError, "x must have at least"),
    "HyperAttention x int": (
        lambda: _att()(torch.zeros(2, 4, 8, dtype=torch.long)),
        TypeError,
        "x must be a float",
    ),
    "HyperAttention x float64": (lambda: _att()(X.double()), TypeError, "x must be torch.float32"),
    "Transformer x float64": (
        lambda: _model()(torch.zeros(2, 4, 5, dtype=torch.float64)),
        TypeError,
        "x must be torch.float32",
    ),
    "Transformer mask shape": (
        lambda: _model()(torch.zeros(2, 4, 5), torch.ones(1, 1, 3, 3, dtype=torch.bool)),
        ValueError,
        "mask must be",
    ),
    "train model for another task": (
        lambda: ah.train(_model(), SRaven(num_features=1), CFG, seed=0),
        ValueError,
        "model reads",
    ),
    "evaluate model for another task": (
        lambda: ah.evaluate(_model(), SRaven(num_features=1), "test", n=4, seed=0),
        ValueError,
        "model reads",
    ),
    "HyperAttention mask shape": (
        lambda: _att()(X, torch.ones(2, 2, 4, 3, dtype=torch.bool)),
        ValueError,
        "mask must broadcast",
    ),
    "HyperAttention mask dtype": (
        lambda: _att()(X, torch.ones(1, 1, 4, 4)),
        TypeError,
        "mask must be a bool",
    ),
    "HyperAttention bias shape": (
        lambda: _att()(X, None, torch.zeros(1, 3, 4, 4)),
        ValueError,
        "bias must broadcast",
    ),
    "HyperAttention bias nan": (
        lambda: _att()(X, None, torch.full((1, 2, 4, 4), NAN)),
        ValueError,
        "bias must be finite",
    ),
    "HyperAttention return_scores": (lambda: _att()(X, return_scores=1), TypeError, "return_scores"),
    "HyperAttention.value_network x": (
        lambda: _att().value_network(torch.zeros(2, 4)),
        ValueError,
        "x must be an array",
    ),
    "HyperAttention.hypernetwork_weights relu": (
        lambda: _att(value_net="relu_mlp").hypernetwork_weights(X),
        ValueError,
        "relu_mlp",
    ),
    "GeneratedNetwork act": (lambda: _net(act="tanh"), ValueError, "act"),
    "GeneratedNetwork w1 type": (lambda: _net(w1=np.zeros((1, 2, 3, 4, 5))), TypeError, "w1"),
    "GeneratedNetwork shapes": (
        lambda: _net(w2=torch.zeros(1, 2, 3, 6, 5)),
        ValueError,
        "w1 (B, Q, K, m, d) and w2",
    ),
    "apply_generated net": (lambda: ah.apply_generated("net", X), TypeError, "net"),
    "apply_generated x shape": (
        lambda: ah.apply_generated(_net(), torch.zeros(1, 3, 4)),
        ValueError,
        "x must be",
    ),
    "normalise_scores norm": (
        lambda: ah.normalise_scores(torch.zeros(1, 2, 3, 3), "sparsemax"),
        ValueError,
        "norm",
    ),
    "normalise_scores scores list": (lambda: ah.normalise_scores([[0.0]], "none"), TypeError, "scores"),
    "normalise_scores mask dtype": (
        lambda: ah.normalise_scores(torch.zeros(1, 2, 3, 3), "softmax", torch.ones(1, 1, 3, 3)),
        TypeError,
        "mask",
    ),
    "normalise_scores mask shape": (
        lambda: ah.normalise_scores(torch.zeros(1, 2, 3, 3), "none", torch.ones(2, 3, dtype=torch.bool)),
        ValueError,
        "mask must broadcast",
    ),
    "normalise_scores eps": (
        lambda: ah.normalise_scores(torch.zeros(1, 2, 3, 3), "rms_head", eps=0),
        ValueError,
        "eps",
    ),
    "mix_values value_net": (
        lambda: ah.mix_values(torch.zeros(1, 2, 3, 3), torch.zeros(1, 3, 2, 4), "gelu"),
        ValueError,
        "value_net",
    ),
    "mix_values v shape": (
        lambda: ah.mix_values(torch.zeros(1, 2, 3, 3), torch.zeros(1, 3, 3, 4), "linear"),
        ValueError,
        "v must be",
    ),
    "mix_values a ndim": (
        lambda: ah.mix_values(torch.zeros(2, 3, 3), torch.zeros(1, 3, 2, 4), "linear"),
        ValueError,
        "a must be a 4-D",
    ),
    "normalise_scores ndim": (
        lambda: ah.normalise_scores(torch.zeros(3, 3), "softmax"),
        ValueError,
        "scores must have >= 3",
    ),
    "rms_head ndim": (lambda: ah.rms_head(torch.zeros(3, 3)), ValueError, "scores must have >= 3"),
    "rms_head nan": (lambda: ah.rms_head(torch.full((2, 3, 3), NAN)), ValueError, "scores must be finite"),
    "rms_head eps": (lambda: ah.rms_head(torch.zeros(2, 3, 3), eps=-1.0), ValueError, "eps"),
    "relative_position_bucket float": (
        lambda: _rpb(relative_position=torch.zeros(3)),
        TypeError,
        "relative_position",
    ),
    "relative_position_bucket bidirectional": (lambda: _rpb(bidirectional=1), TypeError, "bidirectional"),
    "relative_position_bucket num_buckets": (lambda: _rpb(num_buckets=1), ValueError, "num_buckets"),
    "relative_position_bucket max_distance": (lambda: _rpb(max_distance=2), ValueError, "max_distance"),
    # transformer
    "Transformer mixer": (lambda: Transformer(3, 1, mixer="mamba"), ValueError, "mixer"),
    "Transformer in_dim 0": (lambda: Transformer(0, 1), ValueError, "in_dim"),
    "Transformer n_layers bool": (lambda: Transformer(3, 1, n_layers=True), TypeError, "n_layers"),
    "Transformer heads divide": (lambda: Transformer(3, 1, n_heads=3), ValueError, "divisible by n_heads"),
    "Transformer causal": (lambda: Transformer(3, 1, causal="yes"), TypeError, "causal"),
    "Transformer rel_pos": (lambda: Transformer(3, 1, rel_pos_max_dist=1), ValueError, "rel_pos_max_dist"),
    "Transformer seed": (lambda: Transformer(3, 1, seed=-1), ValueError, "seed"),
    "Transformer device": (lambda: Transformer(3, 1, device="gpu"), ValueError, "device"),
    "Transformer x width": (lambda: _model()(torch.zeros(2, 4, 3)), ValueError, "x must be"),
    "Transformer x nan": (lambda: _model()(torch.full((2, 4, 5), NAN)), ValueError, "x must be finite"),
    "Transformer mask dtype": (
        lambda: _model()(torch.zeros(2, 4, 5), torch.ones(1, 1, 4, 4)),
        TypeError,
        "mask",
    ),
    "RelativePositionBias n_heads": (lambda: RelativePositionBias(0, 8, 8), ValueError, "n_heads"),
    "RelativePositionBias max_distance": (lambda: RelativePositionBias(2, 8, 1), ValueError, "max_distance"),
    "RelativePositionBias T": (lambda: RelativePositionBias(2, 8, 8)(0), ValueError, "T"),
    "RelativePositionBias T float": (lambda: RelativePositionBias(2, 8, 8)(2.0), TypeError, "T"),
    # logic
    "FuzzyLogic num_vars": (lambda: FuzzyLogic(num_vars=0), ValueError, "num_vars"),
    "FuzzyLogic frac_test": (lambda: FuzzyLogic(frac_test=1.5), ValueError, "frac_test"),
    "FuzzyLogic seed": (lambda: FuzzyLogic(seed=1.5), TypeError, "seed"),
    "FuzzyLogic.sample split": (lambda: LOGIC.sample(4, "dev", RNG), ValueError, "split"),
    "FuzzyLogic.sample n": (lambda: LOGIC.sample(0, "train", RNG), ValueError, "n"),
    "FuzzyLogic.sample rng": (lambda: LOGIC.sample(4, "train", 0), TypeError, "rng"),
    "FuzzyLogic.sample fixed_query": (
        lambda: LOGIC.sample(4, "train", RNG, fixed_query=np.zeros(3)),
        ValueError,
        "fixed_query",
    ),
    "FuzzyLogic.sample fixed_query nan": (
        lambda: LOGIC.sample(4, "train", RNG, fixed_query=np.full(4, NAN)),
        ValueError,
        "fixed_query must be finite",
    ),
    "fuzzy_or_of_ands latents dtype": (
        lambda: ah.fuzzy_or_of_ands(np.zeros((2, 2, 4)), np.zeros((2, 3, 4))),
        TypeError,
        "latents",
    ),
    "fuzzy_or_of_ands inputs shape": (
        lambda: ah.fuzzy_or_of_ands(LATENTS, np.zeros((2, 3, 5))),
        ValueError,
        "inputs",
    ),
    "fuzzy_or_of_ands inputs nan": (
        lambda: ah.fuzzy_or_of_ands(LATENTS, np.full((2, 3, 4), NAN)),
        ValueError,
        "inputs",
    ),
    "fuzzy_or_of_ands empty": (
        lambda: ah.fuzzy_or_of_ands(LATENTS[:0], np.zeros((0, 3, 4))),
        ValueError,
        "non-empty",
    ),
    # sraven
    "SRaven grid": (lambda: SRaven(grid=2), ValueError, "grid"),
    "SRaven num_values": (lambda: SRaven(num_values=3, grid=4), ValueError, "num_values"),
    "SRaven permute": (lambda: SRaven(permute=1), TypeError, "permute"),
    "SRaven seed": (lambda: SRaven(seed=-3), ValueError, "seed"),
    "SRaven.sample rng": (lambda: SRaven(num_features=1).sample(2, "train", None), TypeError, "rng"),
    "SRaven.sample split": (lambda: SRaven(num_features=1).sample(2, "val", RNG), ValueError, "split"),
    "rule_grids rules float": (
        lambda: ah.rule_grids(np.zeros(3), num_values=8, grid=3, rng=RNG),
        TypeError,
        "rules",
    ),
    "rule_grids rules range": (
        lambda: ah.rule_grids(np.array([8]), num_values=8, grid=3, rng=RNG),
        ValueError,
        "rules",
    ),
    "rule_grids grid": (
        lambda: ah.rule_grids(np.array([0]), num_values=8, grid=2, rng=RNG),
        ValueError,
        "grid",
    ),
    "rule_grids rng": (lambda: ah.rule_grids(np.array([0]), num_values=8, grid=3, rng=1), TypeError, "rng"),
    "rule_answers seq length": (
        lambda: ah.rule_answers(np.zeros((2, 9), int), num_values=8, grid=3),
        ValueError,
        "seq",
    ),
    "rule_answers seq list": (lambda: ah.rule_answers([0] * 8, num_values=8, grid=3), TypeError, "seq"),
    "rule_answers seq values": (
        lambda: ah.rule_answers(np.full(8, 9), num_values=8, grid=3),
        ValueError,
        "seq must hold",
    ),
    "rule_answers num_values": (
        lambda: ah.rule_answers(np.zeros(8, int), num_values=True, grid=3),
        TypeError,
        "num_values",
    ),
    "ambiguity_count shape": (
        lambda: ah.ambiguity_count(np.zeros((2, 3, 4, 1), int), num_values=8),
        ValueError,
        "panels",
    ),
    "ambiguity_count values": (
        lambda: ah.ambiguity_count(np.full((2, 3, 3, 1), 9), num_values=8),
        ValueError,
        "panels",
    ),
    "ambiguity_count float": (
        lambda: ah.ambiguity_count(np.zeros((2, 3, 3, 1)), num_values=8),
        TypeError,
        "panels",
    ),
    # training
    "TrainConfig steps": (lambda: TrainConfig(steps=0), ValueError, "steps"),
    "TrainConfig lr nan": (lambda: TrainConfig(lr=NAN), ValueError, "lr"),
    "TrainConfig lr inf": (lambda: TrainConfig(lr=float("inf")), ValueError, "lr"),
    "TrainConfig batch bool": (lambda: TrainConfig(batch_size=True), TypeError, "batch_size"),
    "TrainConfig warmup": (lambda: TrainConfig(steps=10, warmup=5), ValueError, "warmup"),
    "TrainConfig heads divide": (
        lambda: ah.build_model(LOGIC, TrainConfig(n_heads=3), "hyla", seed=0),
        ValueError,
        "divisible",
    ),
    "build_model task": (lambda: ah.build_model("logic", CFG, "hyla", seed=0), TypeError, "task"),
    "build_model config": (lambda: ah.build_model(LOGIC, {}, "hyla", seed=0), TypeError, "config"),
    "build_model mixer": (lambda: ah.build_model(LOGIC, CFG, "rnn", seed=0), ValueError, "mixer"),
    "build_model device": (
        lambda: ah.build_model(LOGIC, CFG, "hyla", seed=0, device="cuda:x"),
        ValueError,
        "device",
    ),
    "train model": (lambda: ah.train("model", LOGIC, CFG, seed=0), TypeError, "model"),
    "train seed": (lambda: ah.train(_model(), LOGIC, CFG, seed=True), TypeError, "seed"),
    "train device": (lambda: ah.train(_model(), LOGIC, CFG, seed=0, device="meta"), ValueError, "device"),
    "evaluate split": (lambda: ah.evaluate(_model(), LOGIC, "dev", n=4, seed=0), ValueError, "split"),
    "evaluate n": (lambda: ah.evaluate(_model(), LOGIC, "test", n=0, seed=0), ValueError, "n"),
    "evaluate chunk": (
        lambda: ah.evaluate(_model(), LOGIC, "test", n=4, seed=0, chunk=0),
        ValueError,
        "chunk",
    ),
    "evaluate task": (lambda: ah.evaluate(_model(), None, "test", n=4, seed=0), TypeError, "task"),
    "lr_at step": (lambda: ah.lr_at(-1, lr=1e-3, warmup=1, steps=10), ValueError, "step"),
    "lr_at lr": (lambda: ah.lr_at(0, lr=NAN, warmup=1, steps=10), ValueError, "lr"),
    "lr_at warmup": (lambda: ah.lr_at(0, lr=1e-3, warmup=5, steps=10), ValueError, "warmup"),
    "lr_at steps": (lambda: ah.lr_at(0, lr=1e-3, warmup=0, steps=0), ValueError, "steps"),
    "task_loss task": (
        lambda: ah.task_loss("logic", torch.zeros(2, 3, 1), torch.zeros(2)),
        TypeError,
        "task",
    ),
    "task_loss logits": (
        lambda: ah.task_loss(LOGIC, torch.zeros(2, 3), torch.zeros(2)),
        ValueError,
        "logits",
    ),
    "task_loss y": (lambda: ah.task_loss(LOGIC, torch.zeros(2, 3, 1), torch.zeros(3)), ValueError, "y"),
    "task_loss y sraven dtype": (
        lambda: ah.task_loss(SRaven(num_features=1), torch.zeros(2, 9, 8), torch.zeros(2, 1)),
        TypeError,
        "y",
    ),
    # probe
    "ridge_r2 rows": (
        lambda: ah.ridge_r2(np.zeros((3, 2)), np.zeros((4, 1)), np.zeros((3, 2)), np.zeros((3, 1))),
        ValueError,
        "y_train",
    ),
    "ridge_r2 nan": (
        lambda: ah.ridge_r2(np.full((3, 2), NAN), np.zeros((3, 1)), np.zeros((3, 2)), np.zeros((3, 1))),
        ValueError,
        "x_train",
    ),
    "ridge_r2 empty": (
        lambda: ah.ridge_r2(np.zeros((0, 2)), np.zeros((0, 1)), np.zeros((3, 2)), np.zeros((3, 1))),
        ValueError,
        "x_train",
    ),
    "ridge_r2 l2": (
        lambda: ah.ridge_r2(np.zeros((3, 2)), np.zeros((3, 1)), np.zeros((3, 2)), np.zeros((3, 1)), l2=-1),
        ValueError,
        "l2",
    ),
    "last_pair_codes model": (lambda: ah.last_pair_codes(None, torch.zeros(2, 4, 5)), TypeError, "model"),
    "last_pair_codes x": (
        lambda: ah.last_pair_codes(_model(), torch.zeros(2, 4, 3)),
        ValueError,
        "x must be",
    ),
    "logic_latent_r2 task": (lambda: ah.logic_latent_r2(_model(), SRaven(num_features=1)), TypeError, "task"),
    "logic_latent_r2 n": (lambda: ah.logic_latent_r2(_model(), LOGIC, n=4), ValueError, "n"),
    "logic_latent_r2 in_dim": (
        lambda: ah.logic_latent_r2(Transformer(3, 1, d_model=8, n_layers=1, n_heads=2, d_qk=4, d_v=4), LOGIC),
        ValueError,
        "num_vars",
    ),
    # methods
    "run_method name": (lambda: ah.run_method("lstm", LOGIC, CFG, seed=0), ValueError, "name"),
    "run_method task": (lambda: ah.run_method("hyla", "logic", CFG, seed=0), TypeError, "task"),
    "run_method config": (lambda: ah.run_method("hyla", LOGIC, None, seed=0), TypeError, "config"),
    "run_method seed": (lambda: ah.run_method("hyla", LOGIC, CFG, seed=None), TypeError, "seed"),
    "run_method eval_n": (lambda: ah.run_method("hyla", LOGIC, CFG, seed=0, eval_n=2), ValueError, "eval_n"),
    "run_method device": (
        lambda: ah.run_method("hyla", LOGIC, CFG, seed=0, device="gpu0"),
        ValueError,
        "device",
    ),
    "run_method splits": (
        lambda: ah.run_method("hyla", LOGIC, CFG, seed=0, splits=("dev",)),
        ValueError,
        "splits",
    ),
    "run_method splits str": (
        lambda: ah.run_method("hyla", LOGIC, CFG, seed=0, splits="ood"),
        TypeError,
        "splits",
    ),
    "METHODS call": (lambda: ah.METHODS["hyla"].call(LOGIC, CFG, seed=-1), ValueError, "seed"),
    "run_methods jobs": (lambda: ah.run_methods("hyla", CFG), ValueError, "jobs must be"),
    "run_methods seed": (lambda: ah.run_methods([("hyla", LOGIC, True)], CFG), TypeError, "seed must be"),
    "run_methods task": (lambda: ah.run_methods([("hyla", "logic", 0)], CFG), TypeError, "task must be"),
    "run_methods config": (lambda: ah.run_methods([("hyla", LOGIC, 0)], None), TypeError, "config"),
    "run_methods eval_n": (lambda: ah.run_methods([("hyla", LOGIC, 0)], CFG, eval_n=2), ValueError, "eval_n"),
    # stacked training
    "StackedTransformer models": (lambda: ah.StackedTransformer(_model()), ValueError, "models must be"),
    "StackedTransformer causal": (
        lambda: ah.StackedTransformer(
            [Transformer(5, 1, d_model=8, n_layers=1, n_heads=2, d_qk=4, d_v=4, d_mlp=8, causal=True)]
        ),
        ValueError,
        "causal",
    ),
    "train_stacked config": (
        lambda: ah.train_stacked([_model()], [LOGIC], None, seeds=[0]),
        TypeError,
        "config",
    ),
    "train_stacked tasks": (
        lambda: ah.train_stacked([_model()], [SRaven(num_features=1)], CFG, seeds=[0]),
        ValueError,
        "task needs",
    ),
    "train_stacked seeds": (
        lambda: ah.train_stacked([_model()], [LOGIC], CFG, seeds=[-1]),
        ValueError,
        "seed",
    ),
    "train_stacked device": (
        lambda: ah.train_stacked([_model()], [LOGIC], CFG, seeds=[0], device="meta"),
        ValueError,
        "device",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_raises_naming_the_argument(case):
    call, error, fragment = CASES[case]
    with pytest.raises(error, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        call()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
@pytest.mark.parametrize("device", ["cuda", torch.device("cuda:0")])
def test_cuda_without_a_gpu_is_refused_by_name(device):
    with pytest.raises(ValueError, match=r"device is .* but no CUDA GPU"):
        HyperAttention(8, 2, 8, 8, device=device)
    with pytest.raises(ValueError, match=r"device is .* but no CUDA GPU"):
        ah.build_model(LOGIC, CFG, "hyla", seed=0, device=device)


# Entries that take no input (constants, result containers) are covered by construction.
NO_INPUT = {"NORMS", "VALUE_NETS", "MIXERS", "RULES", "METHODS", "LogicBatch", "SRavenBatch", "MixerRun"}


def test_every_public_entry_has_a_bad_input_case():
    covered = {c.split()[0].split(".")[0] for c in CASES}
    missing = set(paperkit.public_table("attention_hypernet")) - covered - NO_INPUT
    assert not missing, f"public entries without a bad-input case: {sorted(missing)}"
