"""asb: Agent Security Bench (ICLR 2025) re-implemented backend-agnostically: the plan-then-execute agent,
DPI / OPI / memory-poisoning / PoT-backdoor / mixed attacks, prompt-level defenses, and ASR, PNA, BP, RR,
NRP; backbones from scripted agents to a tiny in-process LM or any OpenAI-compatible endpoint.

Reproduces "Agent Security Bench (ASB): Formalizing and Benchmarking Attacks and Defenses in LLM-based
Agents" (Zhang et al., ICLR 2025; arXiv 2410.02644; official code agiresearch/ASB).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from asb.agent import Case, CaseEpisode, Trajectory, build_request, run_cases
    from asb.attacks import ATTACKS, STYLES, AttackConfig, core_instruction, wrap
    from asb.data import (
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
    from asb.defenses import DEFENSES, DefenseConfig, paraphrase_rule_based
    from asb.detect import mean_nll, ppl_flags, threshold_sweep
    from asb.llms import AlwaysObeyLLM, HFBackbone, NeverDeviateLLM, OpenAIBackbone, ScriptedLLM
    from asb.memory import MemoryDoc, VectorMemory, memory_key
    from asb.methods import DEFENSE_TARGETS, METHODS, evaluate_attack, run_attack
    from asb.metrics import (
        attack_success,
        fpr_fnr,
        nrp,
        rate,
        refusal_rate,
        task_success,
        tool_called,
    )
    from asb.prompts import PlanError, Request, Step, format_plan, parse_plan
    from asb.toy import ToyConfig, build_corpus, train_toy_lm

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-asb")
