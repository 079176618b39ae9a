"""The classifier: bad input, causality (padding is inert), modes agree, training learns short parity."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from lrnn_state_tracking.models import LAYERS, LRNNLM
from lrnn_state_tracking.tasks import get_task, parity
from lrnn_state_tracking.training import accuracy_by_length, lr_at, scaled_accuracy, train

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("layer", LAYERS)
def test_trailing_padding_never_changes_earlier_outputs(layer, rng, device):
    torch.manual_seed(0)
    model = LRNNLM(3, 2, 8, 2, layer, "pm1", d_state=4, n_heads=2).double().to(device)
    b = parity(4, 5, 12, rng)
    tok = torch.as_tensor(b.tokens, device=device)
    longer = torch.cat([tok, torch.zeros(4, 9, dtype=tok.dtype, device=device)], 1)
    with torch.no_grad():
        torch.testing.assert_close(model(longer)[:, : tok.shape[1]], model(tok), atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("layer", ["diag", "deltanet", "ghproduct"])
def test_model_parallel_and_sequential_modes_agree(layer, rng):
    torch.manual_seed(1)
    model = LRNNLM(3, 2, 8, 2, layer, "pm1", d_state=4, n_heads=2).double()
    tok = torch.as_tensor(parity(3, 30, 70, rng).tokens)
    with torch.no_grad():
        torch.testing.assert_close(
            model(tok, mode="parallel"), model(tok, mode="sequential"), atol=1e-10, rtol=1e-10
        )


def test_bad_token_input():
    model = LRNNLM(3, 2, 8, 1, "diag", context_length=50)
    with pytest.raises(ValueError, match=r"token ids must be in \[0, 2\]"):
        model(torch.tensor([[0, 1, 3]]))
    with pytest.raises(ValueError, match=r"token ids must be in \[0, 2\]"):
        model(torch.tensor([[-1, 1, 2]]))
    with pytest.raises(ValueError, match="sequence length must be >= 1"):
        model(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(ValueError, match="exceeds context_length 50"):
        model(torch.ones(1, 51, dtype=torch.long))
    with pytest.raises(TypeError, match="int64/int32"):
        model(torch.ones(1, 5))
    with pytest.raises(ValueError, match="shape"):
        model(torch.ones(5, dtype=torch.long))
    with pytest.raises(ValueError, match="layer must be one of"):
        LRNNLM(3, 2, layer="gru")
    with pytest.raises(ValueError, match=r"must lie in \[-1, 1\]"):
        LRNNLM(3, 2, eig_range=(-1.5, 1.0))
    with pytest.raises(ValueError, match="vocab must be"):
        LRNNLM(0, 2)


def test_evaluation_refuses_lengths_beyond_context():
    model = LRNNLM(3, 2, 8, 1, "diag", context_length=64)
    with pytest.raises(ValueError, match="exceeds the model's context_length"):
        accuracy_by_length(model, get_task("parity"), 41, 256, 8)


def test_training_a_deltanet_pm1_on_short_parity_learns_it():
    """A tiny [-1,1] DeltaNet (no conv, no MLP) learns parity of 3-8 bits; its loss falls below 0.1."""
    torch.manual_seed(0)
    model = LRNNLM(3, 2, 16, 1, "deltanet", "pm1", conv=0, mlp=False)
    hist = train(model, get_task("parity"), 250, min_len=3, max_len=8, lr=1e-2, seed=0)
    assert hist.loss[:20].mean() > 0.6 and hist.loss[-20:].mean() < 0.1
    assert accuracy_by_length(model, get_task("parity"), 3, 8, 256).accuracy > 0.95


def test_training_is_deterministic_given_the_seed(deterministic):
    def once():
        torch.manual_seed(3)
        m = LRNNLM(3, 2, 8, 1, "diag", "pm1", d_state=2)
        return train(m, get_task("parity"), 5, batch=8, seed=3).loss

    loss = deterministic(once)
    assert loss.shape == (5,) and np.all(np.isfinite(loss)) and loss[0] > 0.5  # starts near ln 2


def test_schedule_and_scaled_accuracy():
    assert lr_at(0, 100, 1.0, 10) == pytest.approx(0.1)
    assert lr_at(9, 100, 1.0, 10) == pytest.approx(1.0)
    assert lr_at(100, 100, 1.0, 10) == pytest.approx(1e-3)
    assert 1e-3 < lr_at(99, 100, 1.0, 10) < 2e-3
    assert scaled_accuracy(0.5, 2) == 0.0 and scaled_accuracy(1.0, 5) == 1.0
    assert scaled_accuracy(0.6, 5) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="n_classes"):
        scaled_accuracy(0.5, 1)


def test_train_refuses_a_model_that_does_not_fit_the_task():
    with pytest.raises(ValueError, match="does not fit task"):
        train(LRNNLM(3, 2, 8, 1), get_task("mod_arith"), 1)
