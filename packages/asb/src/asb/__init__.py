"""asb: Agent Security Bench (ICLR 2025) re-implemented backend-agnostically: the plan-then-execute agent,
DPI / OPI / memory-poisoning / PoT-backdoor / mixed attacks, prompt-level defenses, and ASR, PNA, BP, RR,
NRP; backbones from scripted agents to a tiny in-process LM or any OpenAI-compatible endpoint.

Reproduces "Agent Security Bench (ASB): Formalizing and Benchmarking Attacks and Defenses in LLM-based
Agents" (Zhang et al., ICLR 2025; arXiv 2410.02644; official code agiresearch/ASB).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "AgentSpec": "data",
    "AttackerTool": "data",
    "NormalTool": "data",
    "PotDemo": "data",
    "Suite": "data",
    "SuiteError": "data",
    "load_asb_dir": "data",
    "make_toy_suite": "data",
    "write_asb_dir": "data",
    "ATTACKS": "attacks",
    "STYLES": "attacks",
    "AttackConfig": "attacks",
    "core_instruction": "attacks",
    "wrap": "attacks",
    "DEFENSES": "defenses",
    "DefenseConfig": "defenses",
    "paraphrase_rule_based": "defenses",
    "PlanError": "prompts",
    "Request": "prompts",
    "Step": "prompts",
    "format_plan": "prompts",
    "parse_plan": "prompts",
    "Case": "agent",
    "CaseEpisode": "agent",
    "Trajectory": "agent",
    "build_request": "agent",
    "run_cases": "agent",
    "AlwaysObeyLLM": "llms",
    "HFBackbone": "llms",
    "NeverDeviateLLM": "llms",
    "OpenAIBackbone": "llms",
    "ScriptedLLM": "llms",
    "MemoryDoc": "memory",
    "VectorMemory": "memory",
    "memory_key": "memory",
    "attack_success": "metrics",
    "fpr_fnr": "metrics",
    "nrp": "metrics",
    "rate": "metrics",
    "refusal_rate": "metrics",
    "task_success": "metrics",
    "tool_called": "metrics",
    "mean_nll": "detect",
    "ppl_flags": "detect",
    "threshold_sweep": "detect",
    "ToyConfig": "toy",
    "build_corpus": "toy",
    "train_toy_lm": "toy",
    "METHODS": "methods",
    "DEFENSE_TARGETS": "methods",
    "run_attack": "methods",
    "evaluate_attack": "methods",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from asb.agent import Case, CaseEpisode, Trajectory, build_request, run_cases  # noqa: F401
    from asb.attacks import ATTACKS, STYLES, AttackConfig, core_instruction, wrap  # noqa: F401
    from asb.data import (  # noqa: F401
        AgentSpec,
        AttackerTool,
        NormalTool,
        PotDemo,
        Suite,
        SuiteError,
        load_asb_dir,
        make_toy_suite,
        write_asb_dir,
    )
    from asb.defenses import DEFENSES, DefenseConfig, paraphrase_rule_based  # noqa: F401
    from asb.detect import mean_nll, ppl_flags, threshold_sweep  # noqa: F401
    from asb.llms import AlwaysObeyLLM, HFBackbone, NeverDeviateLLM, OpenAIBackbone, ScriptedLLM  # noqa: F401
    from asb.memory import MemoryDoc, VectorMemory, memory_key  # noqa: F401
    from asb.methods import DEFENSE_TARGETS, METHODS, evaluate_attack, run_attack  # noqa: F401
    from asb.metrics import (  # noqa: F401
        attack_success,
        fpr_fnr,
        nrp,
        rate,
        refusal_rate,
        task_success,
        tool_called,
    )
    from asb.prompts import PlanError, Request, Step, format_plan, parse_plan  # noqa: F401
    from asb.toy import ToyConfig, build_corpus, train_toy_lm  # noqa: F401

__version__ = paperkit.package_version("iclr25-asb")
