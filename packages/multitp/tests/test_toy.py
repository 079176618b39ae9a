"""Respondents, synthetic languages, their word tokenizer (paperkit.lm, whitespace dropped) and the logit
chooser."""

from __future__ import annotations

import numpy as np
import pytest
from multitp.characters import DIMENSIONS
from multitp.preferences import estimate, preference_vector, records
from multitp.render import make_languages
from multitp.toy import (
    SyntheticRespondent,
    expected_amce,
    make_respondents,
    population_amce,
    train_texts,
)
from multitp.vignettes import generate_all
from paperkit.lm import word_tokenizer


def _tokenizer(langs):
    return word_tokenizer(sorted({w for lang in langs for w in lang.vocabulary()}), whitespace_tokens=False)


def test_closed_form_amce_matches_monte_carlo_within_three_se():
    resp = make_respondents(3)[1]
    vig = generate_all(400, seed=8)
    exact = expected_amce(resp, vig)
    est = estimate(records(vig, resp.sample(vig, seed=3)))
    for d, e in zip(DIMENSIONS, exact, strict=True):
        assert abs(est[d].value - e) <= 3 * est[d].se + 1e-9, d


def test_respondents_are_pairwise_identifiable():
    pop = generate_all(1000, seed=12345)
    h = np.array([expected_amce(r, pop) for r in make_respondents(6)])
    np.testing.assert_allclose(population_amce(make_respondents(1)[0], 1000), h[0])
    gap = np.abs(h[:, None] - h[None]).max(-1)
    assert gap[~np.eye(6, dtype=bool)].min() >= 0.3


def test_respondent_without_preferences_gives_zero_and_refuses_bad_beta():
    vig = generate_all(50, seed=0)
    np.testing.assert_allclose(expected_amce(SyntheticRespondent((0.0,) * 6), vig), 0, atol=1e-12)
    with pytest.raises(ValueError, match="beta"):
        SyntheticRespondent((1.0,) * 5)


def test_languages_render_distinctly_and_their_words_are_single_tokens():
    langs = make_languages(6, seed=0)
    vig = generate_all(3, seed=0)
    tok = _tokenizer(langs)
    texts = {lang.render(vig[0], 0) for lang in langs}
    assert len(texts) == 6
    for lang in langs:
        for a in lang.answers:
            assert len(tok(a, add_special_tokens=False)["input_ids"]) == 1
        for v in vig:
            for q in range(3):
                ids = tok(lang.render(v, q), add_special_tokens=False)["input_ids"]
                assert tok.unk_token_id not in ids
    with pytest.raises(ValueError, match="paraphrase"):
        langs[1].render(vig[0], 3)
    with pytest.raises(ValueError, match="order"):
        type(langs[0])("x", (), ("a",), order="vso")


def test_train_texts_labels_follow_the_respondent():
    lang = make_languages(2, seed=0)[1]
    resp = SyntheticRespondent((3.0, 0, 0, 0, 0, 0))
    prompts, answers = train_texts(lang, resp, 120, paraphrases=(0, 1), seed=1)
    assert len(prompts) == 120 and set(answers) <= set(lang.answers)


def test_logit_chooser_renormalises_and_batches_identically():
    import torch
    from multitp.query import LogitChooser
    from paperkit.lm import tiny_causal_lm

    langs = make_languages(2, seed=0)
    tok = _tokenizer(langs)
    model = tiny_causal_lm(tok, n_layer=1, n_head=2, d_model=16, max_positions=64, seed=0)
    vig = generate_all(2, seed=0)
    prompts = [langs[1].render(v, 0) for v in vig]
    big = LogitChooser(model, tok, batch_size=64).p_left(prompts, langs[1].answers)
    small = LogitChooser(model, tok, batch_size=1).p_left(prompts, langs[1].answers)
    np.testing.assert_allclose(big, small, atol=1e-6)
    ids = [tok(a, add_special_tokens=False)["input_ids"][0] for a in langs[1].answers]
    with torch.no_grad():
        x = torch.tensor([[tok.bos_token_id, *tok(prompts[0], add_special_tokens=False)["input_ids"]]])
        logit = model(input_ids=x).logits[0, -1, ids].double()
    assert big[0] == pytest.approx(float(torch.softmax(logit, -1)[0]), abs=1e-6)
    assert preference_vector(records(vig, big)).shape == (6,)
    with pytest.raises(ValueError, match="answer marker"):
        LogitChooser(model, tok).p_left(prompts, ("left", "zzz-unknown"))
    with pytest.raises(ValueError, match="prompts"):
        LogitChooser(model, tok).p_left([], langs[1].answers)


def test_generate_chooser_parses_and_counts_unparsed():
    from multitp.query import GenerateChooser

    class Echo:
        def __init__(self, replies):
            self.replies = iter(replies)

        def complete(self, messages, *, max_tokens, temperature=0.0, stop=None):
            return next(self.replies)

    ch = GenerateChooser(Echo(["Save the two boys.", "I cannot answer.", "both"]))
    p, bad = ch.choose(["q1", "q2", "q3"], [("two boys", "one man")] * 3)
    assert p[0] == 1.0 and np.isnan(p[1]) and p[2] == 0.5 and bad == 1
