"""llego: LLM-guided genetic programming for decision trees (LLEGO), its baselines and a tiny in-process LM.

Reproduces "Decision Tree Induction Through LLMs via Semantically-Aware Evolution" (ICLR 2025, OpenReview
UyhRtB4hjN; arXiv 2503.14217; official code github.com/nicolashuynh/LLEGO).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from llego.algorithm import Evaluator, LLEGOConfig, evolve, initial_population, mean_hamming
    from llego.baselines import cart, gatree
    from llego.data import DATASETS, Dataset, from_arrays, load, split
    from llego.fitness import Fitness, balanced_accuracy, target_fitness
    from llego.llm import LLM, OpenAILLM, Sample, ScriptedLLM, TinyLM
    from llego.methods import METHODS, run_method
    from llego.operators import (
        Individual,
        dedupe,
        fitness_weighted_parents,
        hall_of_fame,
        random_parents,
        select,
        select_offspring,
        selection_probabilities,
    )
    from llego.prompts import CompactLanguage, NaturalLanguage
    from llego.tiny_lm import TinyLMConfig, build_corpus, train_tiny_lm
    from llego.tree import (
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
    from llego.variation import point_mutation, subtree_crossover

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-llego")
