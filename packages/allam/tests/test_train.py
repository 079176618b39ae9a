"""Packing, the mixture's checks (replay ratio, weights, empty sources) and that training learns."""

from __future__ import annotations

import copy
import math

import pytest
from allam.methods import CPTConfig
from allam.train import Mixture, cpt_weights, epochs, pack, train_lm


def test_pack_keeps_whole_documents_from_bos(sub):
    texts = sub.texts["a_train"][:30]
    rows = pack(sub.tok_a, texts, 40)
    tok = sub.tok_a
    assert (rows[:, 0] == tok.bos_token_id).all()
    flat = [t for r in rows.tolist() for t in r if t != tok.pad_token_id]
    want = [t for x in texts for t in (tok.bos_token_id, *tok(x)["input_ids"], tok.eos_token_id)]
    assert flat == want
    with pytest.raises(ValueError, match="seq_len"):
        pack(tok, texts, 4)


def test_replay_ratio_and_weights_are_checked():
    assert cpt_weights(0.25) == {"A": 0.25, "B": 0.75}
    assert cpt_weights(0.5, translation=True) == {"A": 0.5, "B": 0.25, "parallel": 0.25}
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="replay_ratio"):
            cpt_weights(bad)
        with pytest.raises(ValueError, match="replay_ratio"):
            CPTConfig(replay_ratio=bad)
    with pytest.raises(TypeError, match="replay_ratio"):
        cpt_weights("0.5")
    with pytest.warns(UserWarning, match="normalised"):
        m = Mixture({"A": ["a"], "B": ["b"]}, {"A": 1.0, "B": 3.0})
    assert m.weights == {"A": 0.25, "B": 0.75}
    with pytest.raises(ValueError, match="empty"):
        Mixture({"A": ["a"], "B": []}, {"A": 0.5, "B": 0.5})
    with pytest.raises(ValueError, match="weights"):
        Mixture({"A": ["a"]}, {"A": -1.0})
    draw = Mixture({"A": ["a"], "B": ["b"]}, {"A": 0.3, "B": 0.7}).sample(4000, seed=0)
    assert abs(draw.count("a") / 4000 - 0.3) < 0.03
    assert sorted(epochs(["x", "y", "z"], 2, seed=1)) == ["x", "x", "y", "y", "z", "z"]


def test_train_lm_lowers_the_loss_and_is_deterministic(sub, tiny):
    rows = pack(sub.tok_a, epochs(sub.texts["a_train"], 2, seed=0), 64)
    runs = []
    for _ in range(2):
        m = copy.deepcopy(tiny)
        runs.append(train_lm(m, rows, pad_id=sub.tok_a.pad_token_id, steps=25, batch_size=8, lr=1e-2, seed=0))
    assert runs[0] == runs[1]
    assert math.isfinite(runs[0][-1]) and sum(runs[0][-5:]) < 0.7 * sum(runs[0][:5])
    with pytest.raises(ValueError, match="steps"):
        train_lm(copy.deepcopy(tiny), rows, pad_id=0, steps=0, batch_size=8, lr=1e-3)
    with pytest.raises(ValueError, match="lr"):
        train_lm(copy.deepcopy(tiny), rows, pad_id=0, steps=1, batch_size=8, lr=-1.0)
