"""The shared method battery over the registry, the tiny LM path, and what distinguishes the methods."""

from __future__ import annotations

import numpy as np
import pytest
from llego.llm import ScriptedLLM, TinyLM
from llego.methods import METHODS, run_method
from llego.tiny_lm import TinyLMConfig
from shared_testing.battery import MethodBattery, MethodCase

NAMES = ["a", "b", "c", "d"]
SMALL_LM = TinyLMConfig(
    n_pool=10, n_examples=30, steps=3, batch_size=4, warmup=1, d_model=16, n_layer=1, n_head=2
)


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(float)
    return X, y


def inputs(name: str):
    def make():
        X, y = _data()
        kw = {"X": X, "y": y, "feature_names": NAMES, "max_depth": 2}
        if name == "llego":
            kw |= {
                "pop_size": 4,
                "generations": 1,
                "llm": ScriptedLLM(["a t10 L0 L1", "b t20 a t3 L1 L0 L1", "zz"], [-2.0, -9.0, -1.0]),
            }
        elif name == "gatree":
            kw |= {"pop_size": 4, "budget": 12}
        else:
            kw |= {"trials": 3}
        return kw

    return make


BAD = {"max_depth": 0, "task": "multiclass", "feature_names": ["a", "b"]}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(name, call=info.call, inputs=inputs(name), bad_inputs=BAD)
            for name, info in METHODS.items()
        ]


def test_llego_with_a_trained_tiny_lm_and_bad_labels():
    X, y = _data()
    out = run_method(
        "llego", X, y, feature_names=NAMES, max_depth=2, pop_size=4, generations=1, lm_config=SMALL_LM
    )
    assert 0 <= out["test"] <= 1 and out["n_evals"] >= 4
    with pytest.raises(ValueError, match="binary"):
        run_method("cart", X, np.arange(120.0) % 3, feature_names=NAMES)
    with pytest.raises(ValueError, match="cart"):
        run_method("svm", X, y, feature_names=NAMES)


def test_tiny_lm_samples_with_summed_logprobs():
    from llego.data import load, split
    from llego.prompts import CompactLanguage
    from llego.tiny_lm import train_tiny_lm

    sp = split(load("iris_bin"), 0)
    lang = CompactLanguage(sp, max_depth=2)
    llm, info = train_tiny_lm(sp, lang, SMALL_LM, seed=0)
    assert isinstance(llm, TinyLM) and info["examples"] == 30
    tok = llm.tokenizer
    text = "petal_length_cm t3 L0 L1"
    assert (
        tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text
    )  # one token a symbol, spaces kept
    out = llm.sample([lang.mutation_prompt([lang.canonical(lang.parse(text)[0])] * 4)], 3, seed=0)
    assert len(out[0]) == 3 and all(s.logprob < 0 for s in out[0])
    again = llm.sample([lang.mutation_prompt([lang.canonical(lang.parse(text)[0])] * 4)], 3, seed=0)
    assert [s.text for s in again[0]] == [s.text for s in out[0]]
