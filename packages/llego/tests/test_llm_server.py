"""llego's OpenAI backend through the official client against a real loopback endpoint (paperkit.lm.serve).

paperkit's server refuses ``logprobs`` (HTTP 400, param ``logprobs``): OpenAILLM must ask again without
them and hand mutation ``logprob=None`` samples, which it counts as ``missing_logprobs``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("openai")
pytest.importorskip("torch")

from llego import algorithm, data, prompts, tiny_lm
from llego.llm import OpenAILLM
from paperkit.lm import serve, tiny_causal_lm


@pytest.fixture(scope="module")
def split():
    return data.split(data.load("iris_bin"), seed=0)


@pytest.fixture(scope="module")
def lang(split):
    return prompts.CompactLanguage(split, max_depth=2)


@pytest.fixture(scope="module")
def untrained(lang):
    """A fresh (untrained) tiny GPT-2 on the tiny LM's word vocabulary, served on loopback."""
    tok = tiny_lm.word_tokenizer(lang.vocabulary())
    model = tiny_causal_lm(tok, n_layer=1, n_head=2, d_model=32, max_positions=256, seed=0)
    with serve(model, tok, model_name="tiny") as server:
        yield server


@pytest.mark.parametrize("api", ["completions", pytest.param("chat", marks=pytest.mark.slow)])
def test_sample_over_http_falls_back_without_logprobs(untrained, api):
    llm = OpenAILLM(untrained.url, "tiny", api=api, max_tokens=8, temperature=1.0)
    out = llm.sample(["X | a", "X | b"], 3, seed=1)
    assert [len(r) for r in out] == [3, 3]
    assert all(isinstance(s.text, str) and s.logprob is None for r in out for s in r)
    assert llm.logprobs is False  # the server's refusal was remembered
    again = OpenAILLM(untrained.url, "tiny", api=api, max_tokens=8, logprobs=False)
    assert [s.text for s in again.sample(["X | a"], 3, seed=1)[0]] == [s.text for s in out[0]]  # seeded


def test_other_refusals_are_not_swallowed(untrained):
    import openai

    with pytest.raises(openai.NotFoundError):
        OpenAILLM(untrained.url, "no-such-model", max_tokens=8).sample(["X"], 1, seed=0)


@pytest.mark.slow
def test_evolve_crossover_and_mutation_over_http(untrained, split, lang):
    llm = OpenAILLM(untrained.url, "tiny", max_tokens=lang.max_depth * 6 + 2)
    cfg = algorithm.LLEGOConfig(pop_size=4, generations=1, max_depth=2, max_rounds=2)
    res = algorithm.evolve(split, llm, lang, cfg, seed=0)
    assert res.crossover.replies > 0 and res.mutation.replies > 0  # both prompts went over HTTP
    assert res.crossover.replies % 4 == 0 and res.mutation.replies % 6 == 0  # 4 and 6 samples per call
    assert res.n_evals >= cfg.pop_size


@pytest.mark.slow
def test_trained_tiny_lm_over_http_gives_valid_offspring(split, lang):
    """A briefly trained tiny LM behind the server: valid trees come back for both operators, and the
    mutation candidates without log-probs are selected uniformly (counted)."""
    llm0, _ = tiny_lm.train_tiny_lm(split, lang, tiny_lm.TinyLMConfig(n_examples=300, steps=150), seed=0)
    with serve(llm0.model, llm0.tokenizer, model_name="tiny") as server:
        llm = OpenAILLM(server.url, "tiny", max_tokens=llm0.max_new_tokens)
        cfg = algorithm.LLEGOConfig(pop_size=6, generations=2, max_depth=2)
        res = algorithm.evolve(split, llm, lang, cfg, seed=0)
    assert res.crossover.ok + res.crossover.repaired > 0
    assert res.mutation.ok + res.mutation.repaired > 0
    assert res.mutation.missing_logprobs > 0
