"""The shared method battery over the registry, and what distinguishes the baselines."""

from __future__ import annotations

import pytest
import torch
from intervention_graph.methods import METHODS, TraceDict, run_method
from intervention_graph.models import copy_pairs, tiny_gpt2
from shared_testing.battery import MethodBattery, MethodCase

pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest

BAD = {"task": "steer", "n_pairs": 0, "layer": 2, "position": 16}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [
            MethodCase(
                f"{name}/{task}",
                call=info.call,
                inputs=lambda task=task: {
                    "task": task,
                    "n_pairs": 2,
                    "layer": 1,
                    "position": 6,
                    "n_layer": 2,
                    "n_embd": 16,
                },
                bad_inputs=BAD,
                device_arg="device",
            )
            for name, info in METHODS.items()
            for task in ("patching",)
        ]


@pytest.fixture(scope="module")
def gpt2():
    return tiny_gpt2(seed=3), copy_pairs(3, seed=3)


def test_patching_changes_only_the_corrupt_rows_and_the_last_position_result(gpt2):
    model, data = gpt2
    out = run_method("graph", model, data.clean, data.corrupt, task="patching", layer=3, position=15)
    with torch.no_grad():
        clean = model(data.clean).logits[:, -1]
        corrupt = model(data.corrupt).logits[:, -1]
    assert torch.equal(out[:3], clean)  # the clean rows are untouched
    # the last block's output at the last position is all ln_f and lm_head see there: a full restore
    torch.testing.assert_close(out[3:], clean, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(corrupt, clean, atol=1e-3)


def test_logit_lens_at_the_last_layer_is_the_model_output(gpt2):
    model, data = gpt2
    lens = run_method("hooks", model, data.clean, data.corrupt, task="logit_lens", layer=3, position=0)
    with torch.no_grad():
        torch.testing.assert_close(lens, model(data.corrupt).logits[:, -1])


def test_tracedict_records_and_removes_its_hooks(gpt2):
    model, data = gpt2
    with TraceDict(model, ["transformer.h.0", "transformer.h.2"]) as td, torch.no_grad():
        model(data.clean)
    assert td["transformer.h.0"].shape == (3, 16, 128)
    assert all(len(b._forward_hooks) == 0 for b in model.transformer.h)
    with pytest.raises(ValueError, match="layers"):
        TraceDict(model, ["transformer.h.9"])


def test_bad_inputs_name_the_argument(gpt2):
    model, data = gpt2
    with pytest.raises(ValueError, match="name"):
        run_method("pyvene", model, data.clean, data.corrupt, task="patching", layer=0, position=0)
    with pytest.raises(TypeError, match="clean"):
        run_method("graph", model, data.clean.float(), data.corrupt, task="patching", layer=0, position=0)
    with pytest.raises(ValueError, match="one shape"):
        run_method("graph", model, data.clean, data.corrupt[:2], task="patching", layer=0, position=0)
