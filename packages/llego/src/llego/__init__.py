"""llego: LLM-guided genetic programming for decision trees (LLEGO), its baselines and a tiny in-process LM.

Reproduces "Decision Tree Induction Through LLMs via Semantically-Aware Evolution" (ICLR 2025, OpenReview
UyhRtB4hjN; arXiv 2503.14217; official code github.com/nicolashuynh/LLEGO).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "Leaf": "tree",
    "Split": "tree",
    "TreeError": "tree",
    "depth": "tree",
    "features": "tree",
    "from_dict": "tree",
    "from_sklearn": "tree",
    "parse": "tree",
    "parse_reply": "tree",
    "predict": "tree",
    "predict_many": "tree",
    "to_dict": "tree",
    "to_text": "tree",
    "Fitness": "fitness",
    "target_fitness": "fitness",
    "balanced_accuracy": "fitness",
    "DATASETS": "data",
    "Dataset": "data",
    "from_arrays": "data",
    "load": "data",
    "split": "data",
    "CompactLanguage": "prompts",
    "NaturalLanguage": "prompts",
    "LLM": "llm",
    "Sample": "llm",
    "TinyLM": "llm",
    "OpenAILLM": "llm",
    "ScriptedLLM": "llm",
    "Individual": "operators",
    "fitness_weighted_parents": "operators",
    "random_parents": "operators",
    "selection_probabilities": "operators",
    "select_offspring": "operators",
    "select": "operators",
    "dedupe": "operators",
    "hall_of_fame": "operators",
    "LLEGOConfig": "algorithm",
    "Evaluator": "algorithm",
    "evolve": "algorithm",
    "initial_population": "algorithm",
    "mean_hamming": "algorithm",
    "cart": "baselines",
    "gatree": "baselines",
    "subtree_crossover": "variation",
    "point_mutation": "variation",
    "TinyLMConfig": "tiny_lm",
    "build_corpus": "tiny_lm",
    "train_tiny_lm": "tiny_lm",
    "METHODS": "methods",
    "run_method": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from llego.algorithm import Evaluator, LLEGOConfig, evolve, initial_population, mean_hamming  # noqa: F401
    from llego.baselines import cart, gatree  # noqa: F401
    from llego.data import DATASETS, Dataset, from_arrays, load, split  # noqa: F401
    from llego.fitness import Fitness, balanced_accuracy, target_fitness  # noqa: F401
    from llego.llm import LLM, OpenAILLM, Sample, ScriptedLLM, TinyLM  # noqa: F401
    from llego.methods import METHODS, run_method  # noqa: F401
    from llego.operators import (  # noqa: F401
        Individual,
        dedupe,
        fitness_weighted_parents,
        hall_of_fame,
        random_parents,
        select,
        select_offspring,
        selection_probabilities,
    )
    from llego.prompts import CompactLanguage, NaturalLanguage  # noqa: F401
    from llego.tiny_lm import TinyLMConfig, build_corpus, train_tiny_lm  # noqa: F401
    from llego.tree import (  # noqa: F401
        Leaf,
        Split,
        TreeError,
        depth,
        features,
        from_dict,
        from_sklearn,
        parse,
        parse_reply,
        predict,
        predict_many,
        to_dict,
        to_text,
    )
    from llego.variation import point_mutation, subtree_crossover  # noqa: F401

__version__ = paperkit.package_version("iclr25-llego")
