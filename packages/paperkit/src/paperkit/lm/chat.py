"""One chat interface, two backends: a model in this process, or any OpenAI-compatible endpoint."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import torch
from transformers import PreTrainedTokenizerBase

from paperkit.lm.generation import Completion, generate_completions
from paperkit.lm.models import model_device

ROLES: tuple[str, ...] = ("system", "user", "assistant")


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers a list of chat messages with the assistant's next message."""

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
    ) -> str:
        """The assistant's reply to ``messages`` (``[{"role": ..., "content": ...}, ...]``)."""
        ...


def check_messages(messages: Any) -> list[dict[str, str]]:
    """``messages`` as a list of ``{"role", "content"}`` dicts; TypeError/ValueError naming the bad one."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError(
            f"messages must be a list of {{'role', 'content'}} dicts, got {type(messages).__name__}"
        )
    if not messages:
        raise ValueError("messages is empty: give at least one message")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise TypeError(f"messages[{i}] must be a dict with 'role' and 'content', got {type(m).__name__}")
        role, content = m.get("role"), m.get("content")
        if role not in ROLES:
            raise ValueError(f"messages[{i}]['role'] must be one of {', '.join(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise TypeError(f"messages[{i}]['content'] must be a str, got {type(content).__name__}")
        out.append({"role": str(role), "content": content})
    return out


@dataclass(frozen=True)
class ChatTemplate:
    """A plain-text chat format; ``render(messages)`` is the prompt the model completes.

    Each message becomes ``<role prefix><content><separator>``, and the prompt ends with the assistant
    prefix. With the defaults::

        System: You are terse.
        User: 2+2?
        Assistant:

    (the prompt ends with ``"Assistant: "``, trailing space included; the model writes the reply after
    it and ends it with eos). To fine-tune a model for this format, train on
    ``(template.render(messages), reply)`` pairs. Every character of the template must be in the
    tokenizer's alphabet.
    """

    system: str = "System: "
    user: str = "User: "
    assistant: str = "Assistant: "
    separator: str = "\n"

    def render(self, messages: Sequence[Mapping[str, str]]) -> str:
        prefix = {"system": self.system, "user": self.user, "assistant": self.assistant}
        body = "".join(prefix[m["role"]] + m["content"] + self.separator for m in check_messages(messages))
        return body + self.assistant

    def __call__(self, messages: Sequence[Mapping[str, str]]) -> str:
        return self.render(messages)


class HFChatModel:
    """A :class:`ChatModel` backed by a Hugging Face causal LM in this process (via :func:`generate`).

    Args:
        model, tokenizer: e.g. from :func:`tiny_causal_lm` or :func:`load_model`; generation runs on the
            model's device.
        template: turns messages into the prompt: a :class:`ChatTemplate` (default ``ChatTemplate()``) or
            any ``callable(messages) -> str`` (e.g. a wrapper around ``tokenizer.apply_chat_template``).
        seed: seeds the stream of sampling seeds: the k-th sampled call (temperature > 0, no ``seed``
            given to :meth:`complete`) uses the k-th seed drawn from a generator seeded with ``seed``,
            so a run of calls is reproducible while repeated calls still differ. Greedy calls draw nothing.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: PreTrainedTokenizerBase,
        *,
        template: ChatTemplate | Callable[[list[dict[str, str]]], str] | None = None,
        seed: int = 0,
    ) -> None:
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        if template is not None and not callable(template):
            raise TypeError(f"template must be a ChatTemplate or a callable, got {type(template).__name__}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.template: Callable[[list[dict[str, str]]], str] = (
            template if template is not None else ChatTemplate()
        )
        self._seeds = torch.Generator().manual_seed(seed)

    def prompt(self, messages: list[dict[str, str]]) -> str:
        """The text the model completes for ``messages``."""
        return self.template(check_messages(messages))

    def next_seed(self) -> int:
        """The next seed of this chat model's sampling stream."""
        return int(torch.randint(0, 2**62, (1,), generator=self._seeds))

    def complete_prompts(
        self,
        prompts: Sequence[str],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
        seed: int | None = None,
        top_k: int | None = None,
        top_p: float | None = None,
    ) -> list[Completion]:
        """Complete raw prompts (no template) with finish reasons and token counts; what the server uses.

        ``top_k``/``top_p`` restrict sampling as in :func:`paperkit.lm.generate` (``None``: off)."""
        if temperature and seed is None:
            seed = self.next_seed()
        return generate_completions(
            self.model,
            self.tokenizer,
            prompts,
            max_new_tokens=max_tokens,
            temperature=temperature,
            stop=() if stop is None else stop,
            seed=seed,
            device=str(model_device(self.model)),
            top_k=top_k,
            top_p=top_p,
        )

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> str:
        """The reply to ``messages``: greedy at temperature 0; ``seed`` fixes one sampled call."""
        prompt = self.prompt(messages)
        return self.complete_prompts(
            [prompt], max_tokens=max_tokens, temperature=temperature, stop=stop, seed=seed
        )[0].text


class OpenAIChatModel:
    """A :class:`ChatModel` backed by any OpenAI-compatible chat-completions endpoint (official client).

    Args:
        base_url: the API root, e.g. ``"http://127.0.0.1:8000/v1"`` (``serve(...).url`` is one).
        api_key: sent as a bearer token; ``"none"`` for servers without a key.
        model: the model name the endpoint serves.
        timeout: seconds per request; max_retries: the client's retries on connection errors and 5xx.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str = "none",
        model: str,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> None:
        import openai

        for name, value in (("base_url", base_url), ("api_key", api_key), ("model", model)):
            if not isinstance(value, str) or not value:
                raise TypeError(f"{name} must be a non-empty str, got {value!r}")
        self.base_url = base_url
        self.model = model
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> str:
        """The endpoint's reply to ``messages`` (``""`` when it returns no content)."""
        msgs = check_messages(messages)
        extra: dict[str, Any] = {}
        if stop:
            extra["stop"] = list(stop)
        if seed is not None:
            extra["seed"] = seed
        response = self.client.chat.completions.create(
            model=self.model,
            messages=msgs,  # type: ignore[arg-type]
            max_tokens=max_tokens,
            temperature=temperature,
            **extra,
        )
        return response.choices[0].message.content or ""
