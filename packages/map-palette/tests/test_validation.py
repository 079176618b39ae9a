"""Bad input at every public entry of map_palette: TypeError/ValueError naming the argument."""

from __future__ import annotations

from collections.abc import Callable

import map_palette as mp
import numpy as np
import paperkit
import pytest
from map_palette.dual import Groups

R = mp.gaussian_rewards(200, seed=0)
C = np.array([0.1, 0.6, -0.1])
LAM = np.ones(3)
R_NAN = R.copy()
R_NAN[0, 0] = np.nan
GOOD_SIGMA = np.eye(2)
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
IDS = np.repeat(np.arange(20), 10)

Case = tuple[str, Callable[[], object], type[Exception], str]

CASES: list[Case] = [
    ("dual_objective", lambda: mp.dual_objective(LAM, R_NAN, C), ValueError, "R"),
    ("dual_objective", lambda: mp.dual_objective("x", R, C), TypeError, "lam"),
    ("dual_objective", lambda: mp.dual_objective(-LAM, R, C), ValueError, "lam must be >= 0"),
    (
        "dual_objective",
        lambda: mp.dual_objective(LAM, R, C, normalization="foo"),
        ValueError,
        "normalization",
    ),
    ("dual_objective", lambda: mp.dual_objective([np.inf, 0, 0], R, C), ValueError, "lam"),
    ("dual_objective", lambda: mp.dual_objective(LAM, R, C[:2]), ValueError, "c must have"),
    ("dual_objective", lambda: mp.dual_objective(LAM, np.zeros((3, 0)), C), ValueError, "no samples"),
    (
        "realized_levels",
        lambda: mp.realized_levels(LAM, R, normalization="per_prompt"),
        ValueError,
        "prompt_ids",
    ),
    (
        "realized_levels",
        lambda: mp.realized_levels(LAM, R, normalization="per_prompt", prompt_ids=np.zeros(200, bool)),
        TypeError,
        "prompt_ids",
    ),
    ("realized_levels", lambda: mp.realized_levels(LAM, np.zeros((0, 5))), ValueError, "R must score"),
    ("tilt_weights", lambda: mp.tilt_weights(LAM, R_NAN), ValueError, "R"),
    ("tilt_weights", lambda: mp.tilt_weights(LAM[:2], R), ValueError, "lam must have"),
    ("tilt_weights", lambda: mp.tilt_weights(LAM, R, groups="prompts"), TypeError, "groups"),  # type: ignore[arg-type]
    ("tilt_weights", lambda: mp.tilt_weights(LAM, R, Groups.of(np.arange(5))), ValueError, "groups"),
    ("empirical_kl", lambda: mp.empirical_kl(LAM, R_NAN), ValueError, "R"),
    ("empirical_kl", lambda: mp.empirical_kl(-LAM, R), ValueError, "lam"),
    ("effective_sample_size", lambda: mp.effective_sample_size(LAM, R_NAN), ValueError, "R"),
    ("effective_sample_size", lambda: mp.effective_sample_size([1, 2], R), ValueError, "lam"),
    ("kl_ceiling", lambda: mp.kl_ceiling(0), ValueError, "n must"),
    ("kl_ceiling", lambda: mp.kl_ceiling(True), TypeError, "n must"),
    ("kl_ceiling", lambda: mp.kl_ceiling(2.5), TypeError, "n must"),  # type: ignore[arg-type]
    ("solve_lambda", lambda: mp.solve_lambda(R, C + 100), ValueError, "c[0]"),
    ("solve_lambda", lambda: mp.solve_lambda(R_NAN, C), ValueError, "R"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, solver="x"), ValueError, "solver"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, max_iter=True), TypeError, "max_iter"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, max_iter=0), ValueError, "max_iter"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, lr=np.nan), ValueError, "lr"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, lr=0.0), ValueError, "lr"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, lp_margin=np.nan), ValueError, "lp_margin"),
    ("solve_lambda", lambda: mp.solve_lambda(R, C, lp_margin="a"), TypeError, "lp_margin"),
    ("sequential_lambda", lambda: mp.sequential_lambda(R, C, rounds=0), ValueError, "rounds"),
    ("sequential_lambda", lambda: mp.sequential_lambda(R, C, rounds=True), TypeError, "rounds"),
    ("sequential_lambda", lambda: mp.sequential_lambda(R, C + 100), ValueError, "c[0]"),
    ("feasibility_margin", lambda: mp.feasibility_margin(R, [np.nan, 0, 0]), ValueError, "c"),
    ("feasibility_margin", lambda: mp.feasibility_margin(R[:, :0], C), ValueError, "no samples"),
    ("is_feasible", lambda: mp.is_feasible(R, "abc"), TypeError, "c"),
    ("is_feasible", lambda: mp.is_feasible([[True, False]], [0.5]), TypeError, "R"),
    ("gaussian_lambda_star", lambda: mp.gaussian_lambda_star([], np.zeros((0, 0)), []), ValueError, "mu"),
    ("gaussian_lambda_star", lambda: mp.gaussian_lambda_star([0, 0], NOT_PD, [1, 1]), ValueError, "Sigma"),
    (
        "gaussian_lambda_star",
        lambda: mp.gaussian_lambda_star([0, np.nan], GOOD_SIGMA, [1, 1]),
        ValueError,
        "mu",
    ),
    ("gaussian_lambda_star", lambda: mp.gaussian_lambda_star([0, 0], np.eye(3), [1, 1]), ValueError, "Sigma"),
    (
        "gaussian_solve",
        lambda: mp.gaussian_solve([0, 0], GOOD_SIGMA, [1, 1], max_iter=0),
        ValueError,
        "max_iter",
    ),
    (
        "gaussian_solve",
        lambda: mp.gaussian_solve([0, 0], GOOD_SIGMA, [1, 1], max_iter=True),
        TypeError,
        "max_iter",
    ),
    ("gaussian_solve", lambda: mp.gaussian_solve([0, 0], GOOD_SIGMA, [1]), ValueError, "c"),
    ("gaussian_tilted_mean", lambda: mp.gaussian_tilted_mean([1, 1], [0, 0], NOT_PD), ValueError, "Sigma"),
    ("gaussian_tilted_mean", lambda: mp.gaussian_tilted_mean([1, 1], [0, 0], np.eye(3)), ValueError, "Sigma"),
    (
        "gaussian_tilted_mean",
        lambda: mp.gaussian_tilted_mean([1, np.inf], [0, 0], GOOD_SIGMA),
        ValueError,
        "lam",
    ),
    (
        "quantile_palette",
        lambda: mp.quantile_palette(R, ["a", "b", "c"], {"a": 1.5}),
        ValueError,
        "targets['a']",
    ),
    ("quantile_palette", lambda: mp.quantile_palette(R, ["a", "b", "c"], {"z": 0.5}), ValueError, "targets"),
    ("quantile_palette", lambda: mp.quantile_palette(R, ["a", "b"], {}), ValueError, "names"),
    ("quantile_palette", lambda: mp.quantile_palette(R, ["a", "a", "c"], {}), ValueError, "names"),
    ("quantile_palette", lambda: mp.quantile_palette(R, ["a", "b", "c"], [("a", 0.5)]), TypeError, "targets"),  # type: ignore[arg-type]
    ("quantile_palette", lambda: mp.quantile_palette(R_NAN, ["a", "b", "c"], {}), ValueError, "R"),
    ("pareto_search", lambda: mp.pareto_search(R, C, C[:2]), ValueError, "c_high"),
    ("pareto_search", lambda: mp.pareto_search(R, C, C, method="x"), ValueError, "method"),
    (
        "pareto_search",
        lambda: mp.pareto_search(R, C, C, method="grid", grid_points=1),
        ValueError,
        "grid_points",
    ),
    ("pareto_search", lambda: mp.pareto_search(R, C, C, grid_points=True), TypeError, "grid_points"),
    ("pareto_search", lambda: mp.pareto_search(R, C, [np.nan, 0, 0]), ValueError, "c_high"),
    ("Diversity", lambda: mp.Diversity()(["a"], ["b", "c"]), ValueError, "prompts and continuations"),
    ("Diversity", lambda: mp.Diversity()([1], [2]), TypeError, "prompts"),  # type: ignore[list-item]
    ("Conciseness", lambda: mp.Conciseness()(["a"], [3]), TypeError, "continuations"),  # type: ignore[list-item]
    ("Lexicon", lambda: mp.Lexicon([1]), TypeError, "positive"),  # type: ignore[list-item]
    ("Lexicon", lambda: mp.Lexicon(["good"], name=3), TypeError, "name"),  # type: ignore[arg-type]
    ("Lexicon", lambda: mp.Lexicon(["good"])(["a"], None), TypeError, "continuations"),  # type: ignore[arg-type]
    ("BagOfWordsCoherence", lambda: mp.BagOfWordsCoherence()(["a"], None), TypeError, "continuations"),  # type: ignore[arg-type]
    ("coherence_value", lambda: mp.coherence_value(prefer_embedding="yes"), TypeError, "prefer_embedding"),  # type: ignore[arg-type]
    ("coherence_value", lambda: mp.coherence_value(device=5, prefer_embedding=False), TypeError, "device"),  # type: ignore[arg-type]
    ("score_values", lambda: mp.score_values([], ["a"], ["b"]), ValueError, "values"),
    ("score_values", lambda: mp.score_values([3], ["a"], ["b"]), TypeError, "values[0]"),  # type: ignore[list-item]
    ("score_values", lambda: mp.score_values(mp.Conciseness(), ["a"], ["b"]), TypeError, "values"),  # type: ignore[arg-type]
    (
        "score_values",
        lambda: mp.score_values([lambda p, c: np.array([np.nan])], ["a"], ["b"]),
        ValueError,
        "values[0]",
    ),
    (
        "score_values",
        lambda: mp.score_values([lambda p, c: np.zeros(3)], ["a"], ["b"]),
        ValueError,
        "values[0]",
    ),
    (
        "map_decode",
        lambda: mp.map_decode(None, None, [], [mp.Conciseness()], [1.0], seed=0),
        ValueError,
        "prompts",
    ),
    (
        "map_decode",
        lambda: mp.map_decode(None, None, ["a"], [mp.Conciseness()], [1.0], seed=0),
        TypeError,
        "model",
    ),
    ("map_select", lambda: mp.map_select(R, LAM, 0, seed=0), ValueError, "k must"),
    ("map_select", lambda: mp.map_select(R, LAM, True, seed=0), TypeError, "k must"),
    ("map_select", lambda: mp.map_select(R, LAM, 3, seed=0), ValueError, "multiple of k"),
    ("map_select", lambda: mp.map_select(R, LAM, 10, seed=True), TypeError, "seed"),
    ("map_select", lambda: mp.map_select(R, LAM, 10, seed=-1), ValueError, "seed"),
    ("map_select", lambda: mp.map_select(R, -LAM, 10, seed=0), ValueError, "lam must be >= 0"),
    ("map_select", lambda: mp.map_select(R, [1e308, 1e308, 0], 10, seed=0), ValueError, "lam"),
    ("selection_weights", lambda: mp.selection_weights(R_NAN, LAM, 10), ValueError, "R"),
    ("selection_weights", lambda: mp.selection_weights(R, [np.nan, 0, 0], 10), ValueError, "lam"),
    ("selection_weights", lambda: mp.selection_weights(R, LAM, 2.0), TypeError, "k"),  # type: ignore[arg-type]
    ("run_method", lambda: mp.run_method("nope", R, C, seed=0), ValueError, "name"),
    ("run_method", lambda: mp.run_method(3, R, C, seed=0), ValueError, "name"),  # type: ignore[arg-type]
    ("run_method", lambda: mp.run_method("map", R, C), TypeError, "seed"),
    ("run_method", lambda: mp.run_method("map", R, C, seed=True), TypeError, "seed"),
    ("run_method", lambda: mp.run_method("random-lambda", R, C + 100, seed=0), ValueError, "c[0]"),
    ("run_method", lambda: mp.run_method("equal-weight", R_NAN, C, seed=0), ValueError, "R"),
    ("gaussian_rewards", lambda: mp.gaussian_rewards(0, seed=0), ValueError, "n must"),
    ("gaussian_rewards", lambda: mp.gaussian_rewards(True, seed=0), TypeError, "n must"),
    ("gaussian_rewards", lambda: mp.gaussian_rewards(10.0, seed=0), TypeError, "n must"),  # type: ignore[arg-type]
    ("gaussian_rewards", lambda: mp.gaussian_rewards(10, seed=0, mu=np.zeros(2)), ValueError, "Sigma"),
    (
        "gaussian_rewards",
        lambda: mp.gaussian_rewards(10, seed=0, mu=np.array([np.nan, 0, 0])),
        ValueError,
        "mu",
    ),
    ("beta_copula_rewards", lambda: mp.beta_copula_rewards(10, seed=0, a=(0, 1, 1)), ValueError, "a must"),
    ("beta_copula_rewards", lambda: mp.beta_copula_rewards(10, seed=0, a=(1,)), ValueError, "a must"),
    ("beta_copula_rewards", lambda: mp.beta_copula_rewards(10, seed=0, b=(np.nan, 1, 1)), ValueError, "b"),
    (
        "beta_copula_rewards",
        lambda: mp.beta_copula_rewards(10, seed=0, corr=np.array(NOT_PD)),
        ValueError,
        "corr",
    ),
    ("beta_copula_rewards", lambda: mp.beta_copula_rewards(0, seed=0), ValueError, "n must"),
    ("review_corpus", lambda: mp.review_corpus(-1, seed=0), ValueError, "n must"),
    ("review_corpus", lambda: mp.review_corpus(True, seed=0), TypeError, "n must"),
    ("review_corpus", lambda: mp.review_corpus(3, seed="a"), TypeError, "seed"),  # type: ignore[arg-type]
    ("review_prompts", lambda: mp.review_prompts(2.5, seed=0), TypeError, "n must"),  # type: ignore[arg-type]
    ("review_prompts", lambda: mp.review_prompts(3, seed=-1), ValueError, "seed"),
    ("LMConfig", lambda: mp.LMConfig(steps=0), ValueError, "steps"),
    ("LMConfig", lambda: mp.LMConfig(d_model=True), TypeError, "d_model"),
    ("LMConfig", lambda: mp.LMConfig(lr=-1.0), ValueError, "lr"),
    ("LMConfig", lambda: mp.LMConfig(lr=float("nan")), ValueError, "lr"),
    ("LMConfig", lambda: mp.LMConfig(warmup_steps=-1), ValueError, "warmup_steps"),
    ("LMConfig", lambda: mp.LMConfig(d_model=130, n_head=4), ValueError, "n_head"),
    ("train_review_lm", lambda: mp.train_review_lm("cfg", seed=0), TypeError, "config"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(
    ("entry", "call", "error", "fragment"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_bad_input_is_refused_naming_the_argument(
    entry: str, call: Callable[[], object], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value), str(info.value)


def test_every_callable_public_entry_has_a_case() -> None:
    constants = {"NORMALIZATIONS", "SOLVERS", "METHODS", "Solution"}  # data, not entry points
    # the encoder and the full LM path import transformers: their device checks are in test_slow_devices
    heavy = {"EmbeddingCoherence"}
    assert set(paperkit.public_table("map_palette")) - constants - heavy <= {c[0] for c in CASES}


@pytest.mark.slow
@pytest.mark.parametrize("device", ["tpu", "cuda:99"])
def test_devices_are_refused_naming_the_argument(device: str) -> None:
    from map_palette.values import minilm_available
    from paperkit.lm import tiny_causal_lm, train_bpe_tokenizer

    if not minilm_available():
        pytest.skip("the coherence extra is not installed")
    with pytest.raises(ValueError, match="device"):
        mp.EmbeddingCoherence(device=device)
    with pytest.raises(ValueError, match="device"):
        mp.train_review_lm(mp.LMConfig(), seed=0, device=device)
    tok = train_bpe_tokenizer(["review of the pizza : the crust was great ."] * 4, 160)
    model = tiny_causal_lm(tok, seed=0)
    with pytest.raises(ValueError, match="device"):
        mp.map_decode(model, tok, ["a"], [mp.Conciseness()], [1.0], seed=0, device=device)
