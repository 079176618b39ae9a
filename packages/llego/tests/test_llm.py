"""The endpoint backend against a fake client; the scripted backend; the tiny LM's tokenizer."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest
from llego.llm import OpenAILLM, ScriptedLLM


class FakeClient:
    def __init__(self, with_logprobs: bool = True):
        self.calls = []
        lp = NS(token_logprobs=[-0.5, -0.25]) if with_logprobs else None
        self.completions = NS(create=self._complete(lp))
        content = [NS(logprob=-1.0), NS(logprob=-2.0)] if with_logprobs else None
        self.chat = NS(completions=NS(create=self._chat(content)))

    def _complete(self, lp):
        def create(**kw):
            self.calls.append(kw)
            return NS(choices=[NS(text="{'value': 1}", logprobs=lp) for _ in range(kw["n"])])

        return create

    def _chat(self, content):
        def create(**kw):
            self.calls.append(kw)
            return NS(
                choices=[
                    NS(message=NS(content="## {'value': 0} ##"), logprobs=NS(content=content))
                    for _ in range(kw["n"])
                ]
            )

        return create


def test_openai_completions_and_chat_sum_token_logprobs():
    fake = FakeClient()
    out = OpenAILLM("http://x/v1", "m", client=fake).sample(["p1", "p2"], 3, seed=5)
    assert [len(r) for r in out] == [3, 3] and out[0][0].logprob == pytest.approx(-0.75)
    assert fake.calls[0]["logprobs"] == 1 and fake.calls[1]["seed"] == 6
    chat = OpenAILLM("http://x/v1", "m", api="chat", client=fake).sample(["p"], 2, seed=0)
    assert chat[0][1].logprob == pytest.approx(-3.0) and fake.calls[-1]["messages"][0]["role"] == "system"
    none = OpenAILLM("http://x/v1", "m", client=FakeClient(False)).sample(["p"], 1, seed=0)
    assert none[0][0].logprob is None


def test_bad_inputs():
    with pytest.raises(ValueError, match="api"):
        OpenAILLM("http://x", "m", api="grpc", client=FakeClient())
    with pytest.raises(TypeError, match="base_url"):
        OpenAILLM("", "m", client=FakeClient())
    with pytest.raises(ValueError, match="responses"):
        ScriptedLLM([])
    with pytest.raises(ValueError, match="n"):
        ScriptedLLM(["a"]).sample(["p"], 0, seed=0)
    with pytest.raises(TypeError, match="prompts"):
        ScriptedLLM(["a"]).sample("p", 1, seed=0)
