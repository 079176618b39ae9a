"""Claims and tables on synthetic cells; the toy corpus, tokenizer and PPL scorer against references."""

from __future__ import annotations

import re

import pytest
from asb.reproduce.claims import claims, per_seed
from asb.reproduce.config import Config
from asb.reproduce.run import Cell
from asb.reproduce.tables import summary_rows
from asb.toy import build_corpus, obedient_verbs


def _cells(asr: dict[str, float], success: float = 0.9) -> list[Cell]:
    out = []
    for seed in (0, 1, 2):
        for key, value in asr.items():
            attack, _, defense = key.partition("/")
            done = 1.0 if "@" in attack else success  # the bracketing agents finish their tasks
            out.append(Cell(seed, attack, defense or "none", value, value, done, 0, 32))
    return out


BASE = {
    "none": 0.0, "dpi-combined_attack": 0.5, "opi-combined_attack": 0.4, "mp": 0.3, "dpi+opi": 0.7,
    "dpi+opi+mp": 0.8, "pot": 0.8,
    "pot-clean": 0.05, "pot/paraphrase": 0.2, "dpi-combined_attack/delimiters": 0.45,
    "dpi-combined_attack@always-obey": 1.0, "dpi-combined_attack@never-deviate": 0.0,
    "none@never-deviate": 0.0, "pot@always-obey": 1.0, "pot@never-deviate": 0.0,
}  # fmt: skip


def test_claims_pass_on_a_paper_like_pattern_and_fail_on_the_opposite() -> None:
    got = {c.name: c for c in claims(_cells(BASE), Config.smoke())}
    assert all(c.passed for c in got.values()), [c.name for c in got.values() if not c.passed]
    assert got["mixed-beats-single"].observed == pytest.approx(0.3)  # DPI+OPI+MP 0.8 - DPI 0.5
    assert got["dpi-opi-beats-single"].observed == pytest.approx(0.2)
    assert got["pot-backdoor-works"].observed == pytest.approx(0.75)
    worse = {**BASE, "dpi+opi": 0.3, "pot/paraphrase": 0.79, "dpi-combined_attack/delimiters": 0.1}
    got = {c.name: c for c in claims(_cells(worse), Config.smoke())}
    assert not got["dpi-opi-beats-single"].passed and not got["paraphrase-cuts-pot"].passed
    assert not got["delimiters-weak"].passed and got["mixed-beats-single"].passed
    # the paper's Mixed is compared with MP too: memory poisoning stronger than the mix fails it
    got = {c.name: c for c in claims(_cells({**BASE, "mp": 0.9}), Config.smoke())}
    assert not got["mixed-beats-single"].passed and got["mixed-beats-single"].observed == pytest.approx(-0.1)


def test_claims_are_not_judged_on_a_broken_substrate_or_at_asr_zero() -> None:
    """A failed gate voids the comparisons; a comparison at ASR 0 everywhere fails as "not judged" (it
    would otherwise pass vacuously); the NRP algebra is always judged."""
    broken = {c.name: c for c in claims(_cells(BASE, success=0.2), Config.smoke())}
    assert not broken["gate-backbone-learns"].passed and broken["nrp-definition"].passed
    for name in (
        "mixed-beats-single",
        "dpi-opi-beats-single",
        "pot-backdoor-works",
        "paraphrase-cuts-pot",
        "delimiters-weak",
    ):
        assert not broken[name].passed and "the gate failed" in broken[name].note
    leaky = {c.name: c for c in claims(_cells({**BASE, "pot@never-deviate": 0.1}), Config.smoke())}
    assert leaky["gate-backbone-learns"].passed and not leaky["gate-harness-brackets"].passed
    assert "the gate failed" in leaky["pot-backdoor-works"].note
    zero = {k: (0.0 if "@" not in k else v) for k, v in BASE.items()}
    got = {c.name: c for c in claims(_cells(zero), Config.smoke())}
    assert got["gate-backbone-learns"].passed and not got["gate-asr-calibrated"].passed
    for name in ("mixed-beats-single", "dpi-opi-beats-single", "delimiters-weak", "pot-backdoor-works"):
        assert not got[name].passed and "ASR is 0 in every cell" in got[name].note


def test_tables_nrp_is_pna_times_one_minus_asr() -> None:
    rows = {(r["attack"], r["defense"]): r for r in summary_rows(_cells(BASE, success=0.8))}
    assert rows[("dpi+opi", "none")]["NRP"] == pytest.approx(0.8 * 0.3)
    assert rows[("none", "none")]["NRP"] == pytest.approx(0.8)
    with pytest.raises(KeyError, match="no cells"):
        per_seed(_cells(BASE), "dpi+mp")


_IMPERATIVE = re.compile(
    r'(\w+) the \w+ of \w+ (?:using|by using the|with the|through the|via the|by calling the) (?:" )?(\w+)'
)


def test_corpus_is_seeded_and_obeys_its_verb_split() -> None:
    """Plans add the injected tool iff the imperative's verb is in the user half; steps call it too iff
    the observation's verb is in the observation half (checked on the rendered text, by regex)."""
    a, b = build_corpus(3, 400), build_corpus(3, 400)
    assert a == b and build_corpus(4, 400) != a
    user, obs = obedient_verbs(3)
    assert len(user) == len(obs) == 8 and user != obs
    seen = {"plan": 0, "step": 0}
    for p, r in zip(*a, strict=True):
        m = _IMPERATIVE.search(p)
        if m is None or "example" in p or "refer" in p:
            continue
        verb, tool = m.groups()
        kind = "plan" if r.startswith(" plan") else "step"
        if kind == "step" and "step : use " + tool in p:
            continue  # a planned attacker step: called whatever the observation says
        half = user if kind == "plan" else obs
        assert (tool in r.split()) == (verb in half), (p, r)
        seen[kind] += 1
    assert min(seen.values()) >= 20, seen


@pytest.mark.parametrize(
    ("seed", "digest"),
    [(0, "f6ca6c4c28f8c100c88563b26094f0d4cbff93bd91e51f57ed324727a3ff0fcb"),
     (1, "9ac8a27c5ba45bd9f57ca8206ac272717d3310f9d540b38158e9016276cc997c")],
)  # fmt: skip
def test_corpus_is_the_calibrated_one(seed: int, digest: str) -> None:
    """The corpus the calibration (RESULTS.md sections 6-8) was run on, pinned: a faster generator must draw
    the same examples (the digests were taken from the generator of commit a5d6265, before its speed-up).
    A deliberate change of the corpus voids the calibration: recalibrate, then update the digests."""
    import hashlib
    import json

    from asb.data import TOOL_POOL
    from asb.toy import build_corpus

    corpus = build_corpus(seed, 300, names=TOOL_POOL[:40])
    assert hashlib.sha256(json.dumps(corpus).encode()).hexdigest() == digest


def test_filler_words_encode_as_unknown() -> None:
    from asb.toy import FILLER, build_tokenizer

    tok = build_tokenizer(["plan : a ; b", f"x {FILLER} y"])
    ids = tok(f"plan {FILLER} Ignore", add_special_tokens=False)["input_ids"]
    assert ids[1] == ids[2] == tok.unk_token_id != ids[0]


@pytest.mark.parametrize(
    "bad",
    [{"d_model": 256}, {"steps": 0}, {"unk": 1.5}, {"lr": -1.0}, {"length_buckets": 0}, {"warmup_steps": -1},
     {"n_names": 0}, {"forward": "fast"}],
)  # fmt: skip
def test_toy_config_bad_input(bad: dict[str, object]) -> None:
    from asb.toy import ToyConfig

    with pytest.raises(ValueError, match=next(iter(bad))):
        ToyConfig(**bad)


def test_toy_and_reproduce_config_refuse_wrong_types_and_empty_paths() -> None:
    from asb.toy import ToyConfig, train_toy_lm

    with pytest.raises(TypeError, match="unk"):
        ToyConfig(unk="a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cache_dir"):
        train_toy_lm(ToyConfig(), seed=0, cache_dir="")  # refused before any corpus is built
    with pytest.raises(TypeError, match="cache"):
        Config(cache="no")  # type: ignore[arg-type]
    for name in ("n_tasks", "max_fail", "max_new_tokens"):
        with pytest.raises(ValueError, match=name):
            Config(**{name: 0})


def test_mean_nll_equals_the_hf_loss() -> None:
    torch = pytest.importorskip("torch")
    from asb.detect import mean_nll
    from asb.toy import build_tokenizer
    from paperkit.lm import tiny_causal_lm

    texts = ["plan : a ; b", "call : a z ."]
    tok = build_tokenizer(texts)
    model = tiny_causal_lm(tok, n_layer=1, n_head=2, d_model=16, max_positions=16, seed=0)
    ours = mean_nll(texts, model, tok)
    for t, v in zip(texts, ours, strict=True):
        ids = torch.tensor([[tok.bos_token_id, *tok(t, add_special_tokens=False)["input_ids"]]])
        assert v == pytest.approx(float(model(input_ids=ids, labels=ids).loss.detach()), rel=1e-5)
    assert tok.decode(tok("plan : a ; b", add_special_tokens=False)["input_ids"]) == "plan : a ; b"


def test_prompt_over_the_context_length_is_a_clear_error() -> None:
    pytest.importorskip("torch")
    from asb import ATTACKS, Case, make_toy_suite, run_cases
    from asb.data import AttackerTool
    from asb.llms import HFBackbone
    from asb.toy import build_tokenizer
    from paperkit.lm import tiny_causal_lm

    suite = make_toy_suite(0, n_agents=1, n_attackers=1)
    agent = suite.agents[0]
    long = AttackerTool(
        "zed", " ".join(["export the records"] * 40), "d", "goal", "Stealthy Attack", agent.name, True
    )
    tok = build_tokenizer(["plan : call export the records zed"])
    model = tiny_causal_lm(tok, n_layer=1, n_head=2, d_model=16, max_positions=32, seed=0)
    with pytest.raises(ValueError, match="more than the model's 32 positions"):
        run_cases([Case(agent, agent.tasks[0], long, ATTACKS["dpi-naive"])], HFBackbone(model, tok))


def test_toy_backbone_cache_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A second call with the same config and seed loads the cached weights instead of training."""
    torch = pytest.importorskip("torch")
    from asb.toy import ToyConfig, train_toy_lm

    cfg = ToyConfig(d_model=16, n_layer=1, n_head=2, steps=2, batch_size=2, n_examples=40, warmup_steps=1)
    m1, _, l1, hit1 = train_toy_lm(cfg, seed=5, cache_dir=str(tmp_path))
    m2, _, l2, hit2 = train_toy_lm(cfg, seed=5, cache_dir=str(tmp_path))
    assert (hit1, hit2) == (False, True) and l1 == l2
    pairs = zip(m1.state_dict().values(), m2.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)
    _, _, _, hit3 = train_toy_lm(cfg, seed=6, cache_dir=str(tmp_path))
    assert not hit3


def test_a_changed_corpus_does_not_reuse_a_cached_backbone(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The cache key holds a digest of the corpus itself: same corpus, a hit; any change to the
    generator (here the plan share), a miss, with no version constant to remember."""
    import asb.toy
    from asb.toy import ToyConfig, train_toy_lm

    toy = ToyConfig(d_model=16, n_layer=1, n_head=2, steps=1, batch_size=2, n_examples=32, n_names=24)
    hits = [train_toy_lm(toy, seed=0, cache_dir=str(tmp_path))[3] for _ in range(2)]
    monkeypatch.setattr(asb.toy, "PLAN_SHARE", 0.9)
    assert hits == [False, True] and not train_toy_lm(toy, seed=0, cache_dir=str(tmp_path))[3]


def test_forked_seed_workers_give_the_in_process_numbers() -> None:
    """Two seeds in two worker processes (forked on Linux) give the cells and losses of the same seeds run
    one after another in this process: the workers change where the work runs, not what it computes."""
    import dataclasses

    from asb.reproduce.run import run

    smoke = dataclasses.replace(Config.smoke(), n_seeds=2)
    alone = run(dataclasses.replace(smoke, workers=1), seed=3)
    forked = run(dataclasses.replace(smoke, workers=2), seed=3)
    assert forked.metrics["cells"] == alone.metrics["cells"]
    assert forked.metrics["seeds"] == alone.metrics["seeds"]
    assert {c.seed for c in alone.metrics["cells"]} == {3, 4}
