"""An asb agent through paperkit.lm's OpenAI-compatible server on loopback (the OpenAIBackbone path)."""

from __future__ import annotations

import pytest

pytest.importorskip("openai")


def test_an_agent_over_the_paperkit_server_matches_the_in_process_backbone() -> None:
    """The toy LM served over HTTP (chat endpoint, the toy's prompt template) writes the same plans as the
    same model called in process, and whole episodes (plans, native ``tools`` steps, observations) run
    through the server; every case ends with a plan, a failure count or calls, never an exception."""
    from asb.agent import build_request, run_cases
    from asb.data import TOOL_POOL, make_toy_suite
    from asb.llms import HFBackbone, OpenAIBackbone, render_prompt
    from asb.reproduce.run import cases_for
    from asb.toy import ToyConfig, train_toy_lm
    from paperkit.agents import OpenAIToolChat
    from paperkit.lm import serve

    toy = ToyConfig(d_model=32, n_layer=1, n_head=2, steps=2, batch_size=4, n_examples=64, n_names=24)
    model, tok, _, _ = train_toy_lm(toy, seed=0)
    suite = make_toy_suite(0, n_agents=1, n_tasks=1, n_attackers=2, names=TOOL_POOL[:24])
    cases = cases_for(suite, "dpi-naive", "none", 1, None)
    plans = [build_request(c) for c in cases]
    local = HFBackbone(model, tok, max_new_tokens=8)
    with serve(model, tok, model_name="toy", template=render_prompt) as server:
        remote = OpenAIBackbone(OpenAIToolChat(server.url, model="toy", max_retries=0), max_tokens=8)
        got, want = [r.text.strip() for r in remote(plans)], [r.text for r in local(plans)]
        assert got == want and all(got), (got, want)
        trajectories, _ = run_cases(cases, remote, max_fail=2)
    assert len(trajectories) == len(cases)
    for t in trajectories:
        assert t.ended and t.messages
        assert t.plan_failed or t.workflow
