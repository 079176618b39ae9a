"""Generator invariants (spec, "Tests that would catch a wrong implementation")."""

from __future__ import annotations

import pytest
from multitp.characters import ANIMALS, ATTRIBUTES, DIMENSIONS, HUMANS, POOLS, attributes
from multitp.vignettes import generate, generate_all

DIM_INDEX = {d: i for i, d in enumerate(DIMENSIONS)}


@pytest.mark.parametrize("dim", DIMENSIONS)
def test_both_orders_are_mirrors_with_the_favoured_side_tracked(dim):
    vig = generate(dim, 60, seed=3)
    assert len(vig) == 120
    for a, b in zip(vig[::2], vig[1::2], strict=True):
        assert a.pair_id == b.pair_id and a.left == b.right and a.right == b.left
        assert a.favoured_side == 1 - b.favoured_side and a.favoured == b.favoured
    assert {v.favoured_side for v in vig[::2]} == {0, 1}  # the base order is randomised


@pytest.mark.parametrize("dim", DIMENSIONS)
def test_favoured_side_is_higher_on_its_own_attribute_and_sizes(dim):
    for v in generate(dim, 80, seed=5, both_orders=False):
        fav, dis = attributes(v.favoured), attributes(v.disfavoured)
        assert fav[DIM_INDEX[dim]] > dis[DIM_INDEX[dim]]
        assert 1 <= len(v.left) <= 5 and 1 <= len(v.right) <= 5
        if dim == "number":
            assert len(v.disfavoured) < len(v.favoured)
        else:
            assert len(v.left) == len(v.right)


def test_species_sides_are_animals_against_humans():
    for v in generate("species", 100, seed=1, both_orders=False):
        assert set(v.disfavoured) <= set(ANIMALS) and set(v.favoured) <= set(HUMANS)


@pytest.mark.parametrize("dim", ["gender", "age", "fitness"])
def test_index_matched_dimensions_differ_only_in_the_tested_attribute(dim):
    for v in generate(dim, 100, seed=2, both_orders=False):
        diff = attributes(v.favoured) - attributes(v.disfavoured)
        others = [d for d in range(6) if d != DIM_INDEX[dim] and DIMENSIONS[d] != "social"]
        if dim == "gender":
            others = [d for d in range(6) if d != DIM_INDEX[dim]]
        assert all(diff[d] == 0 for d in others), (v, diff)


def test_pools_and_attributes_cover_all_characters():
    assert len(ATTRIBUTES) == 20 and all(len(a) == 6 for a in ATTRIBUTES.values())
    assert len(POOLS["female"]) == len(POOLS["male"]) == 7


def test_generate_all_has_unique_pairs_and_is_deterministic():
    a, b = generate_all(10, seed=4), generate_all(10, seed=4)
    assert a == b and len({v.pair_id for v in a}) == 60
    assert a != generate_all(10, seed=5)


@pytest.mark.parametrize(
    ("kw", "fragment"),
    [
        ({"dim": "religion"}, "dim"),
        ({"n": 0}, "n"),
        ({"max_chars": 0}, "max_chars"),
        ({"seed": -1}, "seed"),
        ({"both_orders": "yes"}, "both_orders"),
    ],
)
def test_bad_arguments_are_refused(kw, fragment):
    args = {"dim": "age", "n": 3, "seed": 0} | kw
    with pytest.raises((ValueError, TypeError), match=fragment):
        generate(args.pop("dim"), args.pop("n"), args.pop("seed"), **args)
