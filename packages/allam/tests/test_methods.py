"""The shared method battery over the variant registry, and what distinguishes the variants."""

from __future__ import annotations

import pytest
from allam.methods import VARIANTS, run_variant
from shared_testing.battery import MethodBattery, MethodCase


def small():
    return {"n_entities": 4, "pretrain_steps": 2, "cpt_steps": 2, "d_model": 8}


BAD = {"replay_ratio": 1.5, "cpt_steps": 0, "n_entities": 1}


class TestMethods(MethodBattery):
    @classmethod
    def cases(cls):
        return [MethodCase(name, call=lambda name=name, **kw: run_variant(name, **kw), inputs=small,
                           bad_inputs=BAD, device_arg="device") for name in VARIANTS]  # fmt: skip


def test_variants_share_the_base_and_differ_where_declared():
    em, orig = run_variant("expand_mean", **small()), run_variant("orig_tok", **small())
    assert em["losses"] != orig["losses"]
    # A and B bits per byte are finite and the byte-level baseline pays more per B byte at init
    assert orig["b_bpb"] > 0 and em["a_bpb"] > 0


def test_unknown_variant_lists_the_registry():
    with pytest.raises(ValueError, match="expand_mean"):
        run_variant("wechsel")
