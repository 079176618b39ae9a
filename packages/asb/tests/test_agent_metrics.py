"""The agent loop's failure handling, the metrics' definitions, memory and the detectors."""

from __future__ import annotations

import numpy as np
import pytest
from asb import (
    ATTACKS,
    Case,
    MemoryDoc,
    NeverDeviateLLM,
    ScriptedLLM,
    VectorMemory,
    attack_success,
    format_plan,
    fpr_fnr,
    load_asb_dir,
    make_toy_suite,
    nrp,
    parse_plan,
    rate,
    run_cases,
    task_success,
    threshold_sweep,
    tool_called,
    write_asb_dir,
)
from asb.prompts import PlanError, Step
from paperkit.agents import ToolCall, ToolReply
from paperkit.embed import HashingEmbedder

SUITE = make_toy_suite(1, n_agents=2, n_attackers=2)
AGENT = SUITE.agents[0]
Z = SUITE.attackers_of(AGENT.name)[0]
A, B = (t.name for t in AGENT.tools)


def _script(plan: str, calls: list[list[str]]) -> ScriptedLLM:
    def fn(r):  # type: ignore[no-untyped-def]
        if r.kind == "plan":
            return ToolReply(plan)
        return ToolReply("", tuple(ToolCall(n) for n in calls[r.index]))

    return ScriptedLLM(fn)


def test_asr_counts_once_and_strict_flag() -> None:
    case = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["dpi-naive"])
    (traj,), _ = run_cases([case], _script(f"plan : {A} ; {B}", [[A, Z.name], [B, Z.name]]))
    assert traj.calls.count(Z.name) == 2
    assert rate([attack_success(case, traj)]) == 1.0 and tool_called(case, traj) and task_success(case, traj)


def test_failed_plan_counts_in_the_denominator_with_zero() -> None:
    case = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["dpi-naive"])
    (traj,), stats = run_cases([case], _script("I will not plan", []), max_fail=3)
    assert traj.plan_failed and traj.failures == 3 and stats.episodes[0].ended == "max_failures"
    assert not attack_success(case, traj) and not task_success(case, traj)
    ok = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["none"])
    trajs, _ = run_cases([case, ok], ScriptedLLM(lambda r: NeverDeviateLLM()([r])[0] if r.agent else None))
    assert rate([task_success(c, t) for c, t in zip([case, ok], trajs, strict=True)]) == 1.0


def test_unknown_tool_is_a_failure_message_not_a_success() -> None:
    case = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["none"])
    (traj,), _ = run_cases([case], _script(f"plan : {A} ; {B}", [["nosuch"], [B]]))
    assert any("fails to call nosuch" in m for m in traj.messages) and not task_success(case, traj)


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        ('<tool_call>{"name": "nosuch", "arguments": {}}</tool_call>', "unknown tool 'nosuch'"),
        ('<tool_call>{"name": "%s", "arguments": {"x": 1}}</tool_call>', "unknown argument 'x'"),
        ('<tool_call>{"name": "%s", "arguments": [1]}</tool_call>', "arguments must be a JSON object"),
        ('<tool_call>{"name": "%s", "arguments": {}', "never closed"),
    ],
)
def test_bad_tool_calls_in_the_asb_style_are_counted_errors(reply: str, fragment: str) -> None:
    """Unknown tools and malformed arguments: the strict grammar raises ToolCallError naming the fault;
    the agent counts the step as failed (ASB: tool-call failures, up to 10), never as a call."""
    from paperkit.agents import ToolCallError, ToolSpec, parse_tool_calls, text_tool_reply

    text = reply.replace("%s", A)
    tools = [ToolSpec(A), ToolSpec(B)]
    with pytest.raises(ToolCallError, match=fragment):
        parse_tool_calls(text, tools)
    assert text_tool_reply(text, tools).error is not None
    case = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["none"], style="asb")
    plan = format_plan([Step("a", (A,)), Step("b", (B,))], "asb")
    script = ScriptedLLM(lambda r: ToolReply(plan) if r.kind == "plan" else text_tool_reply(text, r.tools))
    (traj,), stats = run_cases([case], script, max_fail=2)
    assert traj.calls == [] and traj.failures == 2 and stats.episodes[0].ended == "max_failures"
    assert not task_success(case, traj)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("[]", "0 step"), ('[{"message": "a"}]', "lacks"),
     ('[{"message": "a", "tool_use": "x"}, {}]', "tool_use must"),
     ("not json", "not a JSON list"), ("plan : a", "1 step")],
)  # fmt: skip
def test_bad_plans(text: str, fragment: str) -> None:
    style = "compact" if text.startswith("plan") else "asb"
    with pytest.raises(PlanError, match=fragment):
        parse_plan(text, style)


def test_plan_round_trip() -> None:
    steps = [Step("use a", ("a",)), Step("use b z", ("b", "z"))]
    assert parse_plan(format_plan(steps, "compact"), "compact") == steps
    assert parse_plan(format_plan(steps, "asb"), "asb") == steps


def test_nrp_and_detector_rates() -> None:
    assert nrp(0.8, 0.25) == pytest.approx(0.6) and nrp(0.7, 0.0) == 0.7
    with pytest.raises(ValueError, match="asr"):
        nrp(0.5, 1.5)
    assert fpr_fnr([True, False, True, False], [True, True, False, False]) == (0.5, 0.5)
    assert fpr_fnr([False], [False]) == (0.0, 0.0)
    scores, labels = [1.0, 2.0, 3.0, 4.0], [False, False, True, True]
    (_, fpr_lo, fnr_lo), (_, fpr_hi, fnr_hi) = threshold_sweep(scores, labels, [0.5, 5.0])
    assert (fpr_lo, fnr_lo) == (1.0, 0.0) and (fpr_hi, fnr_hi) == (0.0, 1.0)
    with pytest.raises(ValueError, match="flags is empty"):
        rate([])


def test_memory_retrieves_the_nearest_and_empty_gives_no_reference() -> None:
    mem = VectorMemory(HashingEmbedder(256))
    assert mem.query(["anything"]) == [[]]
    a = MemoryDoc("x", "review the market risk report", "plan : a ; z", ("a", "z"))
    b = MemoryDoc("x", "delete the patient course files", "plan : b", ("b",))
    mem.add([a, b])
    assert mem.query(["review the market risk"])[0] == [a]
    assert mem.query(["delete patient files"])[0] == [b]
    case = Case(AGENT, AGENT.tasks[0], Z, ATTACKS["mp"], reference=None)
    (traj,), _ = run_cases([case], NeverDeviateLLM())
    assert not any("refer" in m or "None" in m for m in traj.messages[:-3])


def test_asb_layout_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    write_asb_dir(SUITE, tmp_path)
    assert load_asb_dir(tmp_path) == type(SUITE)(
        SUITE.agents, SUITE.attacker_tools, meta={"source": str(tmp_path)}
    )
    with pytest.raises(FileNotFoundError, match="not a folder"):
        load_asb_dir(tmp_path / "missing")
    (tmp_path / "agent_task.jsonl").write_text("{broken\n")
    with pytest.raises(ValueError, match="not JSON"):
        load_asb_dir(tmp_path)


def test_same_seed_same_suite_and_hashing_ties() -> None:
    assert make_toy_suite(3) == make_toy_suite(3) and make_toy_suite(3) != make_toy_suite(4)
    v = HashingEmbedder(64).embed(["a b"])
    assert np.isfinite(v).all()
