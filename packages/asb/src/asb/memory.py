"""ASB's agent memory: plans written back after runs, retrieved top-1 by embedding similarity (MP).

A document is ASB's write-back string "Agent: ...; Task: ...; Workflow: ...; Tools: ..."; the retrieval key
is the task plus the JSON of the offered tools (official ``search_memory_instruction``). The official code
uses Chroma with OpenAI embeddings; here any :class:`paperkit.embed.Embedder` (MiniLM offline, or the
hashing fallback) and exact cosine search.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from paperkit import check_int
from paperkit.embed import Embedder, top_k

from asb.agent import Case, Trajectory, build_request

__all__ = ["MemoryDoc", "VectorMemory", "memory_key"]


@dataclass(frozen=True)
class MemoryDoc:
    """One stored run: its text (what is embedded) and the workflow it would hand to a new plan."""

    agent: str
    task: str
    workflow: str
    tools: tuple[str, ...]

    @property
    def text(self) -> str:
        tools = ", ".join(self.tools)
        return f"Agent: {self.agent}; Task: {self.task}; Workflow: {self.workflow}; Tools: {tools}"


def _workflow(t: Trajectory) -> str:
    """The stored workflow: the plan as the backbone wrote it, steps' tools joined by ``" ; "``."""
    return " ; ".join(" ".join(s.tool_use) for s in t.planned)


def memory_key(case: Case) -> str:
    """The retrieval key of a case: its task and the JSON of the tools it is offered."""
    req = build_request(case)
    return f"{case.task} {json.dumps([t.name for t in req.tools])}"


class VectorMemory:
    """A list of :class:`MemoryDoc` with their embeddings; ``query(texts, k=1)`` returns docs, best first."""

    def __init__(self, embedder: Embedder) -> None:
        if not callable(getattr(embedder, "embed", None)):
            raise TypeError(f"embedder must have embed(texts), got {type(embedder).__name__}")
        self.embedder = embedder
        self.docs: list[MemoryDoc] = []
        self._keys = np.zeros((0, int(embedder.dim)), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.docs)

    def add(self, docs: Sequence[MemoryDoc]) -> None:
        for i, d in enumerate(docs):
            if not isinstance(d, MemoryDoc):
                raise TypeError(f"docs[{i}] must be a MemoryDoc, got {type(d).__name__}")
        if docs:
            self.docs.extend(docs)
            self._keys = np.concatenate([self._keys, self.embedder.embed([d.text for d in docs])])

    def add_runs(self, cases: Sequence[Case], trajectories: Sequence[Trajectory]) -> None:
        """Write back every run whose plan parsed (ASB's memory building)."""
        docs = [
            MemoryDoc(
                c.agent.name,
                build_request(c).task,
                _workflow(t),
                tuple(dict.fromkeys(t.calls)),
            )
            for c, t in zip(cases, trajectories, strict=True)
            if t.workflow
        ]
        self.add(docs)

    def query(self, texts: Sequence[str], k: int = 1) -> list[list[MemoryDoc]]:
        """The ``k`` nearest docs of each text (an empty memory returns empty lists: no reference)."""
        check_int(k, "k", low=1)
        if not self.docs:
            return [[] for _ in texts]
        idx, _ = top_k(self.embedder.embed(list(texts)), self._keys, min(k, len(self.docs)))
        return [[self.docs[j] for j in row] for row in idx]
