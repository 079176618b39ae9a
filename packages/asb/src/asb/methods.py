"""The registry: ASB's attacks and defenses by name, with what each reaches (typed metadata)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from asb.agent import Case, Responder, Trajectory, run_cases
from asb.attacks import ATTACKS, AttackConfig
from asb.data import Suite, make_toy_suite
from asb.defenses import DEFENSES, DefenseConfig

__all__ = ["DEFENSE_TARGETS", "METHODS", "Method", "evaluate_attack", "run_attack"]


@dataclass(frozen=True)
class Method:
    """An attack of the paper: its config and the channels it reaches."""

    name: str
    attack: AttackConfig
    channels: tuple[str, ...]


def _channels(a: AttackConfig) -> tuple[str, ...]:
    return tuple(
        n for n, on in (("dpi", a.dpi), ("opi", a.opi), ("memory", a.memory), ("pot", a.pot_trigger)) if on
    )


METHODS: dict[str, Method] = {n: Method(n, a, _channels(a)) for n, a in ATTACKS.items()}
#: the attacks each defense targets in the paper (Sec. 5; counts derive from this, not hard-coded)
DEFENSE_TARGETS: dict[str, tuple[str, ...]] = {
    "delimiters": ("dpi", "opi"),
    "instructional": ("dpi", "opi"),
    "sandwich": ("opi",),
    "paraphrase": ("dpi", "pot"),
    "shuffle": ("pot",),
}


def run_attack(
    suite: Suite,
    name: str,
    backbone: Responder,
    *,
    defense: str = "none",
    n_tasks: int = 1,
    references: Sequence[str | None] | None = None,
) -> tuple[list[Case], list[Trajectory]]:
    """Run attack ``name`` on every agent x task x attacker tool of ``suite`` with ``backbone``."""
    if name not in METHODS:
        raise ValueError(f"unknown attack {name!r}; known: {sorted(METHODS)}")
    if not isinstance(suite, Suite):
        raise TypeError(f"suite must be an asb.Suite, got {type(suite).__name__}")
    cases = [
        Case(a, t, z, METHODS[name].attack, DefenseConfig(defense))
        for a in suite.agents
        for t in a.tasks[:n_tasks]
        for z in suite.attackers_of(a.name)
    ]
    if references is not None:
        if len(references) != len(cases):
            raise ValueError(f"references has {len(references)} entries for {len(cases)} cases")
        cases = [Case(**{**c.__dict__, "reference": r}) for c, r in zip(cases, references, strict=True)]
    trajectories, _ = run_cases(cases, backbone)
    return cases, trajectories


def evaluate_attack(
    name: str,
    *,
    seed: int = 0,
    backbone: str = "always-obey",
    defense: str = "none",
    n_agents: int = 2,
    n_attackers: int = 2,
) -> dict[str, float]:
    """ASR, strict ASR and task success of attack ``name`` on a seeded toy suite with a scripted
    bracketing backbone (``"always-obey"`` / ``"never-deviate"``); the registry's uniform entry point."""
    from paperkit import check_choice

    from asb.llms import AlwaysObeyLLM, NeverDeviateLLM
    from asb.memory import VectorMemory, memory_key
    from asb.metrics import attack_success, rate, task_success, tool_called

    check_choice(backbone, "backbone", ("always-obey", "never-deviate"))
    check_choice(defense, "defense", DEFENSES)
    suite = make_toy_suite(seed, n_agents=n_agents, n_attackers=n_attackers)
    llm = AlwaysObeyLLM() if backbone == "always-obey" else NeverDeviateLLM()
    refs = None
    if METHODS.get(name, METHODS["none"]).attack.memory:
        from paperkit.embed import HashingEmbedder

        mem = VectorMemory(HashingEmbedder(256))
        c0, t0 = run_attack(suite, "dpi-combined_attack", AlwaysObeyLLM())
        mem.add_runs(c0, t0)
        refs = [d[0].workflow if d else None for d in mem.query([memory_key(c) for c in c0])]
    cases, trajs = run_attack(suite, name, llm, defense=defense, references=refs)
    pairs = list(zip(cases, trajs, strict=True))
    return {
        "asr": rate([attack_success(c, t) for c, t in pairs]),
        "asr_tool": rate([tool_called(c, t) for c, t in pairs]),
        "success": rate([task_success(c, t) for c, t in pairs]),
    }
