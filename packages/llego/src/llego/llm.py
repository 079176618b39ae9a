"""The LLM behind the operators: anything that samples ``n`` completions of each prompt with log-probs.

``sample(prompts, n, *, seed) -> list[list[Sample]]``; ``Sample.logprob`` is the *sum* of the completion's
token log-probabilities (official ``parse_llm_responses_with_logprobs``), or ``None`` when the backend
gives none (mutation then falls back to uniform selection and counts it).

- :class:`TinyLM`: a Hugging Face causal LM in this process (``paperkit.lm.sample_k``: one batched,
  seeded generation over every prompt x n, log-probs rescored at temperature 1).
- :class:`OpenAILLM`: any OpenAI-compatible endpoint, completions API (``logprobs=1``, as the official
  code for non-GPT-4o engines) or chat API (``logprobs=True``).
- :class:`ScriptedLLM`: canned replies, for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from paperkit import check_bool, check_choice, check_int, check_number, check_seed, check_strings

__all__ = ["LLM", "OpenAILLM", "Sample", "ScriptedLLM", "TinyLM"]


@dataclass(frozen=True)
class Sample:
    """One completion: its text, summed token log-prob (``None``: not given) and generated tokens."""

    text: str
    logprob: float | None = None
    tokens: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"text must be a str, got {type(self.text).__name__}")
        if self.logprob is not None:
            check_number(self.logprob, "logprob")
        check_int(self.tokens, "tokens", low=0)


@runtime_checkable
class LLM(Protocol):
    def sample(self, prompts: Sequence[str], n: int, *, seed: int) -> list[list[Sample]]:
        """``n`` completions of every prompt, in prompt order."""
        ...


def _check(prompts: Sequence[str], n: int, seed: int) -> tuple[list[str], int, int]:
    return check_strings(prompts, "prompts"), check_int(n, "n", low=1), check_seed(seed)


class TinyLM:
    """A local causal LM (e.g. from :func:`llego.tiny_lm.train_tiny_lm`) as an :class:`LLM`.

    Args:
        model, tokenizer: a Hugging Face causal LM and its tokenizer (bos/eos/pad set).
        max_new_tokens: the longest completion; temperature, top_p: sampling (official values unknown,
            ``configs/llm_api`` is not in the repository; 1.0 and 1.0 here).
        device: where the model lives.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_new_tokens: int = 40,
        temperature: float = 1.0,
        top_p: float = 1.0,
        device: str = "cpu",
    ) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", low=1)
        self.temperature = check_number(temperature, "temperature", low=0.0, low_open=True)
        self.top_p = check_number(top_p, "top_p", low=0.0, high=1.0, low_open=True)
        self.device = device
        self.tokens_generated = 0
        self.prompt_tokens = 0

    def sample(self, prompts: Sequence[str], n: int, *, seed: int) -> list[list[Sample]]:
        from paperkit import torch_threads
        from paperkit.lm import sample_k

        prompts, n, seed = _check(prompts, n, seed)
        if not prompts:
            return []
        with torch_threads(1):
            roll = sample_k(
                self.model,
                self.tokenizer,
                prompts,
                n,
                max_new_tokens=self.max_new_tokens,
                seed=seed,
                temperature=self.temperature,
                top_p=None if self.top_p == 1.0 else self.top_p,
                device=self.device,
            )
        lens = roll.response_mask.sum(-1).tolist()
        self.tokens_generated += int(sum(lens))
        self.prompt_tokens += int(roll.attention_mask.sum()) - int(sum(lens))
        lp = roll.logprobs.tolist()
        flat = [Sample(t, float(v), int(k)) for t, v, k in zip(roll.texts, lp, lens, strict=True)]
        return [flat[i * n : (i + 1) * n] for i in range(len(prompts))]


class ScriptedLLM:
    """Replies from a list, cycled: reply ``j`` of the whole run is ``responses[j % len]`` (logprob
    ``logprobs[j % len]`` if given). Counts calls and prompts seen."""

    def __init__(self, responses: Sequence[str], logprobs: Sequence[float] | None = None) -> None:
        self.responses = check_strings(responses, "responses")
        if not self.responses:
            raise ValueError("responses is empty: give at least one reply")
        self.logprobs = (
            None if logprobs is None else [check_number(v, f"logprobs[{i}]") for i, v in enumerate(logprobs)]
        )
        if self.logprobs is not None and len(self.logprobs) != len(self.responses):
            raise ValueError("logprobs must have one value per response")
        self.count = 0
        self.prompts: list[str] = []

    def sample(self, prompts: Sequence[str], n: int, *, seed: int) -> list[list[Sample]]:
        prompts, n, seed = _check(prompts, n, seed)
        out = []
        for p in prompts:
            self.prompts.append(p)
            row = []
            for _ in range(n):
                j = self.count % len(self.responses)
                lp = None if self.logprobs is None else self.logprobs[j]
                row.append(Sample(self.responses[j], lp, len(self.responses[j].split())))
                self.count += 1
            out.append(row)
        return out


class OpenAILLM:
    """An OpenAI-compatible endpoint (official client). ``api="completions"`` sends the prompt as is with
    ``logprobs=1``; ``api="chat"`` sends system + user messages with ``logprobs=True``. ``client``: an
    object with the ``openai.OpenAI`` interface (tests pass a fake).

    ``logprobs=False`` asks for none. A server that refuses the log-prob option (HTTP 400 naming
    ``logprobs``, e.g. :func:`paperkit.lm.serve`) is asked again without it, once, and from then on
    (``self.logprobs`` becomes False): its samples carry ``logprob=None``, so mutation falls back to
    uniform selection and counts it (``missing_logprobs``)."""

    SYSTEM = "You are an expert in creating decision trees."  # official prompts.content

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "none",
        api: str = "completions",
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 400,
        logprobs: bool = True,
        client: Any = None,
    ) -> None:
        for name, value in (("base_url", base_url), ("model", model), ("api_key", api_key)):
            if not isinstance(value, str) or not value:
                raise TypeError(f"{name} must be a non-empty str, got {value!r}")
        self.model = model
        self.api = check_choice(api, "api", ("completions", "chat"))
        self.temperature = check_number(temperature, "temperature", low=0.0, high=2.0)
        self.top_p = check_number(top_p, "top_p", low=0.0, high=1.0)
        self.max_tokens = check_int(max_tokens, "max_tokens", low=1)
        self.logprobs = check_bool(logprobs, "logprobs")
        if client is None:
            import openai

            client = openai.OpenAI(base_url=base_url, api_key=api_key)
        self.client = client

    def _create(self, prompt: str, n: int, seed: int) -> Any:
        kw: dict[str, Any] = dict(
            model=self.model,
            n=n,
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=seed,
        )
        if self.logprobs:
            kw["logprobs"] = 1 if self.api == "completions" else True
        if self.api == "completions":
            return self.client.completions.create(prompt=prompt, **kw)
        msgs = [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": prompt}]
        return self.client.chat.completions.create(messages=msgs, **kw)

    def _one(self, prompt: str, n: int, seed: int) -> list[Sample]:
        try:
            r = self._create(prompt, n, seed)
        except Exception as err:  # the client's BadRequestError; refused log-probs: ask without them
            if not (self.logprobs and _refuses_logprobs(err)):
                raise
            self.logprobs = False
            r = self._create(prompt, n, seed)
        out = []
        for c in r.choices:
            lp_obj = getattr(c, "logprobs", None)
            if self.api == "completions":
                lps = list(getattr(lp_obj, "token_logprobs", None) or ())
                text = c.text
            else:
                lps = [t.logprob for t in getattr(lp_obj, "content", None) or ()]
                text = c.message.content
            out.append(Sample(text or "", float(sum(lps)) if lps else None, len(lps)))
        return out

    def sample(self, prompts: Sequence[str], n: int, *, seed: int) -> list[list[Sample]]:
        prompts, n, seed = _check(prompts, n, seed)
        return [self._one(p, n, seed + i) for i, p in enumerate(prompts)]


def _refuses_logprobs(err: Exception) -> bool:
    """Is ``err`` an HTTP 400 whose OpenAI-shaped error body names the ``logprobs`` parameter?"""
    if getattr(err, "status_code", None) != 400:
        return False
    body = getattr(err, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    return isinstance(inner, dict) and inner.get("param") == "logprobs"
