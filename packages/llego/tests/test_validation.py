"""Bad input at every public entry of llego.__all__: TypeError/ValueError with the argument's name.

Each case is ``(entry, call, error type, message fragment)``; ``call`` takes a context of valid objects
(a small split, a tree, an individual) and makes one argument bad. The LLM protocol and the METHODS /
DATASETS constants take no input; the tiny LM's training is reached through ``build_corpus`` (same checks).
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import llego
import numpy as np
import pytest
from llego import data, prompts
from llego.fitness import Fitness
from llego.operators import Individual
from llego.tree import Leaf, Split

NAN = float("nan")
T = Split("a", 0.5, Leaf(0.0), Leaf(1.0))


@pytest.fixture(scope="module")
def c():
    X = np.random.default_rng(0).normal(size=(40, 2))
    ds = data.from_arrays(X, (X[:, 0] > 0).astype(float), feature_names=["a", "b"], task="classification")
    sp = data.split(ds, seed=0)
    ind = Individual(T, 0.5, 0.5, 0.5, np.zeros(3))
    return NS(
        sp=sp, ds=ds, ind=ind, lang=prompts.CompactLanguage(sp, max_depth=2), rng=np.random.default_rng(0)
    )


def _ok_llm():
    return llego.ScriptedLLM(["{'value': 1}"])


CASES = [
    ("Leaf", lambda c: llego.Leaf("x"), TypeError, "value"),
    ("Leaf", lambda c: llego.Leaf(NAN), ValueError, "value"),
    ("Split", lambda c: llego.Split(3, 0.5, Leaf(0), Leaf(1)), TypeError, "feature"),
    ("Split", lambda c: llego.Split("a", float("inf"), Leaf(0), Leaf(1)), ValueError, "threshold"),
    ("Split", lambda c: llego.Split("a", 0.5, {"value": 1}, Leaf(1)), TypeError, "left"),
    ("Split", lambda c: llego.Split("a", 0.5, Leaf(0), Leaf(1), strict=1), TypeError, "strict"),
    ("TreeError", lambda c: llego.parse("{'a': 1}"), ValueError, "two branches"),
    ("depth", lambda c: llego.depth({"value": 1}), TypeError, "node"),
    ("features", lambda c: llego.features("tree"), TypeError, "node"),
    ("from_dict", lambda c: llego.from_dict({"value": 1}, max_depth=True), TypeError, "max_depth"),
    ("from_dict", lambda c: llego.from_dict({"value": 1}, feature_names="ab"), TypeError, "feature_names"),
    ("from_dict", lambda c: llego.from_dict([1, 2]), ValueError, "node must be a dict"),
    ("from_sklearn", lambda c: llego.from_sklearn(object(), ["a"]), TypeError, "estimator"),
    ("parse", lambda c: llego.parse(b"{}"), TypeError, "text"),
    ("parse", lambda c: llego.parse("{'value': 1}", max_depth=-1), ValueError, "max_depth"),
    ("parse_reply", lambda c: llego.parse_reply(None, feature_names=["a"], max_depth=2), TypeError, "text"),
    (
        "parse_reply",
        lambda c: llego.parse_reply("x", feature_names=["a"], max_depth=0.5),
        TypeError,
        "max_depth",
    ),
    (
        "parse_reply",
        lambda c: llego.parse_reply("x", feature_names="a", max_depth=2),
        TypeError,
        "feature_names",
    ),
    ("predict", lambda c: llego.predict(T, np.zeros(3), {"a": 0}), ValueError, "X"),
    ("predict", lambda c: llego.predict(T, np.full((2, 1), NAN), {"a": 0}), ValueError, "X"),
    ("predict", lambda c: llego.predict(T, np.zeros((2, 1)), {"a": 5}), ValueError, "columns"),
    ("predict", lambda c: llego.predict(T, np.zeros((2, 1)), ["a"]), TypeError, "columns"),
    ("predict", lambda c: llego.predict("t", np.zeros((2, 1)), {"a": 0}), TypeError, "node"),
    ("predict_many", lambda c: llego.predict_many(T, np.zeros((2, 1)), {"a": 0}), TypeError, "trees"),
    ("predict_many", lambda c: llego.predict_many([T, 1], np.zeros((2, 1)), {"a": 0}), TypeError, "trees[1]"),
    ("to_dict", lambda c: llego.to_dict(T, precision=-1), ValueError, "precision"),
    ("to_dict", lambda c: llego.to_dict(None), TypeError, "node"),
    ("to_text", lambda c: llego.to_text(T, precision=2.0), TypeError, "precision"),
    ("Fitness", lambda c: llego.Fitness("auc"), ValueError, "metric"),
    ("Fitness", lambda c: Fitness()(np.zeros(3), np.zeros((2, 4))), ValueError, "pred"),
    ("Fitness", lambda c: Fitness()(np.zeros(0), np.zeros((2, 0))), ValueError, "y"),
    ("target_fitness", lambda c: llego.target_fitness([], 0.1, False), ValueError, "values"),
    ("target_fitness", lambda c: llego.target_fitness([0.5, NAN], 0.1, False), ValueError, "values"),
    ("target_fitness", lambda c: llego.target_fitness([0.5], NAN, False), ValueError, "alpha"),
    ("target_fitness", lambda c: llego.target_fitness([0.5], 0.1, 0), TypeError, "lower_is_better"),
    ("balanced_accuracy", lambda c: llego.balanced_accuracy([], []), ValueError, "y"),
    ("balanced_accuracy", lambda c: llego.balanced_accuracy([0, 1], [0, 1, 1]), ValueError, "pred"),
    ("balanced_accuracy", lambda c: llego.balanced_accuracy([0, NAN], [0, 1]), ValueError, "y"),
    (
        "Dataset",
        lambda c: llego.Dataset("d", np.zeros(3), np.zeros(3), ("a",), "classification", ""),
        ValueError,
        "X",
    ),
    (
        "Dataset",
        lambda c: llego.Dataset("d", np.zeros((3, 1)), np.zeros(3), ("a",), "ranking", ""),
        ValueError,
        "task",
    ),
    (
        "from_arrays",
        lambda c: data.from_arrays(np.zeros((3, 1)), np.zeros(2), feature_names=["a"], task="regression"),
        ValueError,
        "y",
    ),
    (
        "from_arrays",
        lambda c: data.from_arrays(np.zeros((0, 1)), np.zeros(0), feature_names=["a"], task="regression"),
        ValueError,
        "X",
    ),
    (
        "from_arrays",
        lambda c: data.from_arrays(np.zeros((3, 2)), np.zeros(3), feature_names="ab", task="regression"),
        TypeError,
        "feature_names",
    ),
    (
        "from_arrays",
        lambda c: data.from_arrays(np.zeros((3, 1)), [0, 2, 1], feature_names=["a"], task="classification"),
        ValueError,
        "y",
    ),
    (
        "from_arrays",
        lambda c: data.from_arrays(
            np.zeros((3, 1)), np.zeros(3), feature_names=["a"], task="regression", description=3
        ),
        TypeError,
        "description",
    ),
    ("load", lambda c: llego.load("mnist"), ValueError, "name"),
    ("split", lambda c: llego.split(c.ds, seed=True), TypeError, "seed"),
    ("split", lambda c: llego.split("breast_cancer"), TypeError, "dataset"),
    ("CompactLanguage", lambda c: llego.CompactLanguage("split"), TypeError, "split"),
    ("CompactLanguage", lambda c: llego.CompactLanguage(c.sp, max_depth=0), ValueError, "max_depth"),
    ("CompactLanguage", lambda c: c.lang.crossover_prompt([T], [0.5, 0.6], 0.7), ValueError, "fitness"),
    ("CompactLanguage", lambda c: c.lang.parse(5), TypeError, "text"),
    ("NaturalLanguage", lambda c: llego.NaturalLanguage(None), TypeError, "split"),
    (
        "NaturalLanguage",
        lambda c: llego.NaturalLanguage(c.sp).mutation_prompt([T, "t"]),
        TypeError,
        "parents[1]",
    ),
    ("Sample", lambda c: llego.Sample(3), TypeError, "text"),
    ("Sample", lambda c: llego.Sample("t", NAN), ValueError, "logprob"),
    ("Sample", lambda c: llego.Sample("t", -1.0, tokens=-1), ValueError, "tokens"),
    ("TinyLM", lambda c: llego.TinyLM(None, None, max_new_tokens=0), ValueError, "max_new_tokens"),
    ("TinyLM", lambda c: llego.TinyLM(None, None, temperature=NAN), ValueError, "temperature"),
    ("OpenAILLM", lambda c: llego.OpenAILLM("http://x/v1", "m", api="grpc", client=1), ValueError, "api"),
    ("OpenAILLM", lambda c: llego.OpenAILLM("http://x/v1", "", client=1), TypeError, "model"),
    (
        "OpenAILLM",
        lambda c: llego.OpenAILLM("http://x/v1", "m", max_tokens=True, client=1),
        TypeError,
        "max_tokens",
    ),
    ("OpenAILLM", lambda c: llego.OpenAILLM("http://x/v1", "m", top_p=1.5, client=1), ValueError, "top_p"),
    ("OpenAILLM", lambda c: llego.OpenAILLM("http://x/v1", "m", logprobs=1, client=1), TypeError, "logprobs"),
    (
        "OpenAILLM",
        lambda c: llego.OpenAILLM("http://x/v1", "m", client=1).sample(["p"], 0, seed=0),
        ValueError,
        "n",
    ),
    ("ScriptedLLM", lambda c: llego.ScriptedLLM([]), ValueError, "responses"),
    ("ScriptedLLM", lambda c: llego.ScriptedLLM(["a"], logprobs=[NAN]), ValueError, "logprobs"),
    ("ScriptedLLM", lambda c: llego.ScriptedLLM(["a"]).sample(["p"], 1, seed=-1), ValueError, "seed"),
    ("Individual", lambda c: llego.Individual("t", 0.5, 0.5, 0.5, np.zeros(2)), TypeError, "tree"),
    ("Individual", lambda c: llego.Individual(T, NAN, 0.5, 0.5, np.zeros(2)), ValueError, "train"),
    ("Individual", lambda c: llego.Individual(T, 0.5, 0.5, 0.5, np.zeros((2, 2))), ValueError, "signature"),
    (
        "fitness_weighted_parents",
        lambda c: llego.fitness_weighted_parents([0.5] * 4, 5, 1, c.rng, lower_is_better=False),
        ValueError,
        "n_parents",
    ),
    (
        "fitness_weighted_parents",
        lambda c: llego.fitness_weighted_parents([0.5, NAN], 1, 1, c.rng, lower_is_better=False),
        ValueError,
        "values",
    ),
    (
        "fitness_weighted_parents",
        lambda c: llego.fitness_weighted_parents([0.5] * 4, 2, 1, 0, lower_is_better=False),
        TypeError,
        "rng",
    ),
    (
        "fitness_weighted_parents",
        lambda c: llego.fitness_weighted_parents([0.5] * 4, 2, -1, c.rng, lower_is_better=False),
        ValueError,
        "n_calls",
    ),
    (
        "fitness_weighted_parents",
        lambda c: llego.fitness_weighted_parents([0.5] * 4, 2, 1, c.rng, lower_is_better="no"),
        TypeError,
        "lower_is_better",
    ),
    ("random_parents", lambda c: llego.random_parents(4, 2, 1, "rng"), TypeError, "rng"),
    ("random_parents", lambda c: llego.random_parents(0, 2, 1, c.rng), ValueError, "n_pop"),
    ("random_parents", lambda c: llego.random_parents(4, True, 1, c.rng), TypeError, "n_parents"),
    ("selection_probabilities", lambda c: llego.selection_probabilities([], 10.0), ValueError, "logprobs"),
    ("selection_probabilities", lambda c: llego.selection_probabilities([-1.0], 0.0), ValueError, "tau"),
    (
        "selection_probabilities",
        lambda c: llego.selection_probabilities([-1.0], 1.0, "most"),
        ValueError,
        "rule",
    ),
    (
        "selection_probabilities",
        lambda c: llego.selection_probabilities([[-1.0]], 1.0),
        ValueError,
        "logprobs",
    ),
    (
        "select_offspring",
        lambda c: llego.select_offspring([-1.0, NAN, -2.0], 1, 10.0, c.rng),
        ValueError,
        "logprobs",
    ),
    ("select_offspring", lambda c: llego.select_offspring([-1.0], 1, -1.0, c.rng), ValueError, "tau"),
    (
        "select_offspring",
        lambda c: llego.select_offspring([-1.0, -2.0], 1, 1.0, c.rng, rule="x"),
        ValueError,
        "rule",
    ),
    ("select_offspring", lambda c: llego.select_offspring([-1.0], 0, 1.0, c.rng), ValueError, "n_keep"),
    ("select_offspring", lambda c: llego.select_offspring([-1.0, -2.0], 1, 1.0, None), TypeError, "rng"),
    ("dedupe", lambda c: llego.dedupe([c.ind, "x"]), TypeError, "individuals[1]"),
    ("select", lambda c: llego.select([c.ind], 0, Fitness()), ValueError, "n"),
    ("select", lambda c: llego.select([], 1, Fitness()), ValueError, "individuals"),
    ("select", lambda c: llego.select([c.ind], 1, "mse"), TypeError, "fitness"),
    ("hall_of_fame", lambda c: llego.hall_of_fame([], Fitness()), ValueError, "individuals"),
    ("hall_of_fame", lambda c: llego.hall_of_fame([c.ind], None), TypeError, "fitness"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(pop_size=True), TypeError, "pop_size"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(pop_size=2), ValueError, "pop_size"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(tau=float("inf")), ValueError, "tau"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(alpha=NAN), ValueError, "alpha"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(generations=-1), ValueError, "generations"),
    ("LLEGOConfig", lambda c: llego.LLEGOConfig(n_parents=0), ValueError, "n_parents"),
    (
        "LLEGOConfig",
        lambda c: llego.LLEGOConfig(use_crossover=False, use_mutation=False),
        ValueError,
        "use_crossover",
    ),
    ("Evaluator", lambda c: llego.Evaluator(c.ds), TypeError, "split"),
    ("Evaluator", lambda c: llego.Evaluator(c.sp)(T), TypeError, "trees"),
    (
        "evolve",
        lambda c: llego.evolve(c.ds, _ok_llm(), c.lang, llego.LLEGOConfig(pop_size=4, generations=0)),
        TypeError,
        "split",
    ),
    (
        "evolve",
        lambda c: llego.evolve(c.sp, "gpt", c.lang, llego.LLEGOConfig(pop_size=4, generations=0)),
        TypeError,
        "llm",
    ),
    (
        "evolve",
        lambda c: llego.evolve(c.sp, _ok_llm(), None, llego.LLEGOConfig(pop_size=4, generations=0)),
        TypeError,
        "language",
    ),
    ("evolve", lambda c: llego.evolve(c.sp, _ok_llm(), c.lang, {"pop_size": 4}), TypeError, "config"),
    (
        "evolve",
        lambda c: llego.evolve(
            c.sp, _ok_llm(), c.lang, llego.LLEGOConfig(pop_size=4, generations=0), seed=1.5
        ),
        TypeError,
        "seed",
    ),
    (
        "evolve",
        lambda c: llego.evolve(
            c.sp, _ok_llm(), c.lang, llego.LLEGOConfig(pop_size=4, generations=0, max_depth=3)
        ),
        ValueError,
        "max_depth",
    ),
    (
        "initial_population",
        lambda c: llego.initial_population(c.sp, 0, 2, 0, c.lang.canonical),
        ValueError,
        "n",
    ),
    (
        "initial_population",
        lambda c: llego.initial_population(c.sp, 2, True, 0, c.lang.canonical),
        TypeError,
        "max_depth",
    ),
    (
        "initial_population",
        lambda c: llego.initial_population(c.sp, 2, 2, -1, c.lang.canonical),
        ValueError,
        "seed",
    ),
    ("initial_population", lambda c: llego.initial_population(c.sp, 2, 2, 0, None), TypeError, "canonical"),
    (
        "initial_population",
        lambda c: llego.initial_population(None, 2, 2, 0, c.lang.canonical),
        TypeError,
        "split",
    ),
    ("mean_hamming", lambda c: llego.mean_hamming([np.zeros(2), np.zeros(3)]), ValueError, "signatures"),
    ("mean_hamming", lambda c: llego.mean_hamming(np.zeros(3)), ValueError, "signatures"),
    ("cart", lambda c: llego.cart(c.sp, trials=0), ValueError, "trials"),
    ("cart", lambda c: llego.cart(c.ds), TypeError, "split"),
    ("cart", lambda c: llego.cart(c.sp, criterion="log"), ValueError, "criterion"),
    ("gatree", lambda c: llego.gatree(c.sp, pop_size=1), ValueError, "pop_size"),
    ("gatree", lambda c: llego.gatree(c.sp, p_mutation=NAN), ValueError, "p_mutation"),
    ("gatree", lambda c: llego.gatree(None), TypeError, "split"),
    ("gatree", lambda c: llego.gatree(c.sp, pop_size=2, max_evals=4, init=[T, "t"]), TypeError, "init[1]"),
    ("subtree_crossover", lambda c: llego.subtree_crossover(T, "b", c.rng), TypeError, "b"),
    ("subtree_crossover", lambda c: llego.subtree_crossover(T, T, 0), TypeError, "rng"),
    (
        "point_mutation",
        lambda c: llego.point_mutation(T, {"a": np.ones(2)}, np.ones(2), c.rng, 0),
        ValueError,
        "max_depth",
    ),
    ("point_mutation", lambda c: llego.point_mutation(T, {}, np.ones(2), c.rng, 2), ValueError, "values"),
    (
        "point_mutation",
        lambda c: llego.point_mutation(T, {"a": np.ones(2)}, np.ones(0), c.rng, 2),
        ValueError,
        "leaves",
    ),
    (
        "point_mutation",
        lambda c: llego.point_mutation(None, {"a": np.ones(2)}, np.ones(2), c.rng, 2),
        TypeError,
        "t",
    ),
    ("TinyLMConfig", lambda c: llego.TinyLMConfig(steps=0), ValueError, "steps"),
    ("TinyLMConfig", lambda c: llego.TinyLMConfig(p_best=NAN), ValueError, "p_best"),
    ("TinyLMConfig", lambda c: llego.TinyLMConfig(batch_size=False), TypeError, "batch_size"),
    (
        "build_corpus",
        lambda c: llego.build_corpus(c.sp, "lang", llego.TinyLMConfig(), seed=0),
        TypeError,
        "lang",
    ),
    (
        "build_corpus",
        lambda c: llego.build_corpus(None, c.lang, llego.TinyLMConfig(), seed=0),
        TypeError,
        "split",
    ),
    ("build_corpus", lambda c: llego.build_corpus(c.sp, c.lang, {"steps": 1}, seed=0), TypeError, "config"),
    ("train_tiny_lm", lambda c: llego.train_tiny_lm(c.sp, c.lang, seed="0"), TypeError, "seed"),
    (
        "train_tiny_lm",
        lambda c: llego.train_tiny_lm(c.sp, c.lang, max_new_tokens=0),
        ValueError,
        "max_new_tokens",
    ),
    ("run_method", lambda c: llego.run_method("c4.5", np.zeros((4, 1)), np.zeros(4)), ValueError, "name"),
    (
        "run_method",
        lambda c: llego.run_method(
            "cart", np.zeros((4, 1)), np.zeros(3), feature_names=["a"], task="regression"
        ),
        ValueError,
        "y",
    ),
]


@pytest.mark.parametrize(
    ("entry", "call", "exc", "fragment"), CASES, ids=[f"{e}-{i}" for i, (e, *_) in enumerate(CASES)]
)
def test_bad_input_names_the_argument(c, entry, call, exc, fragment):
    with pytest.raises(exc, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        call(c)


NO_INPUT = {"LLM", "METHODS", "DATASETS", "__version__"}


def test_every_public_entry_has_a_case():
    covered = {e for e, *_ in CASES}
    assert set(llego.__all__) - NO_INPUT - covered == set()
