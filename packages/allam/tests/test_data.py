"""The generated world: deterministic translation, no leakage of A-only facts into B, the split."""

from __future__ import annotations

import pytest
from allam.data import (
    LANGS,
    WorldConfig,
    corpus,
    make_world,
    parallel_pairs,
    qa_probes,
    render,
    transliterate,
)


def test_b_sentence_is_a_function_of_its_a_sentence_and_b_is_greek():
    w = make_world(WorldConfig(n_entities=20), seed=1)
    mapping: dict[str, str] = {}
    for f in w.facts:
        for t in range(6):
            a, b = render(f, "A", t), render(f, "B", t)
            assert mapping.setdefault(a, b) == b
            assert a.isascii() and not any(c.isascii() and c.isalpha() for c in b)
    assert len(set(mapping.values())) == len(mapping)  # and injective: B determines A back
    assert make_world(WorldConfig(n_entities=20), seed=1) == w


def test_a_only_facts_never_reach_b_text_or_parallel_data():
    w = make_world(WorldConfig(n_entities=30), seed=2)
    b_text = corpus(w.of("AB", "B"), "B") + parallel_pairs(w.of("AB"))
    for f in w.of("A"):
        stated = f"{transliterate(f.entity)}ου {transliterate(f.relation)}α {transliterate(f.value)}"
        assert not any(stated in t for t in b_text)
        assert not any(render(f, "A", 0) in t for t in b_text)
    with pytest.raises(ValueError, match="both languages"):
        parallel_pairs(w.of("A")[:1])


def test_split_and_probes():
    w = make_world(WorldConfig(n_entities=50), seed=0)
    n = len(w.facts)
    assert n == 200 and [len(w.of(g)) for g in ("A", "AB", "B")] == [80, 80, 40]
    for lang in LANGS:
        for p in qa_probes(w.of("A")[:5], lang, w):
            assert p.answer in p.candidates and len(set(p.candidates)) == 8
            assert render(p.fact, lang, 0).startswith(p.prompt + p.answer)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_entities": 2}, "n_entities"), ({"split": (0.5, 0.5, 0.5)}, "split"),
     ({"split": (float("nan"), 0.5, 0.5)}, "split"), ({"n_values": "8"}, "n_values")],
)  # fmt: skip
def test_bad_world_config(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        WorldConfig(**kwargs)


def test_bad_render_arguments():
    f = make_world(WorldConfig(n_entities=4), seed=0).facts[0]
    with pytest.raises(ValueError, match="lang"):
        render(f, "C")
    with pytest.raises(ValueError, match="template"):
        render(f, "A", 6)
    with pytest.raises(ValueError, match="seed"):
        make_world(seed=-1)
