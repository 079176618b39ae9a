"""Graph input: conversion rules, bad input, the synthetic graphs against networkx."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from lpca_metric_embed import DENSE_MAX_NODES, block_cliques, from_edge_index, planted_rgg, to_graph
from lpca_metric_embed.graphs import check_dense_size


def test_undirected_networkx_graph_holds_both_directions_and_relabels():
    G = nx.Graph([("a", "b"), ("b", "c")])
    g = to_graph(G)
    assert g.n == 3 and not g.directed and list(g.nodes) == ["a", "b", "c"]
    assert sorted(map(tuple, g.edge_index.T.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1)]


def test_directed_graph_keeps_direction_and_matches_scipy_input():
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    g = to_graph(G)
    assert g.directed and g.n_links == 3
    A = nx.to_scipy_sparse_array(G, nodelist=[0, 1, 2])
    assert np.array_equal(to_graph(A).keys, g.keys) and to_graph(A).directed


def test_self_loops_duplicates_and_weights_are_normalised():
    G = nx.MultiGraph()
    G.add_edge(0, 1, weight=3.5)
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(2, 2)  # self loop: dropped
    G.add_edge(1, 2, weight=0.0)  # zero weight: not a link
    g = to_graph(G)
    assert g.n == 3 and g.n_links == 2
    dense = g.dense()
    assert dense[0, 1] and dense[1, 0] and not dense.diagonal().any() and not dense[1, 2]


def test_sparse_with_duplicate_entries_and_isolated_nodes():
    A = sp.coo_array((np.array([1.0, 2.0, 1.0]), (np.array([0, 0, 3]), np.array([1, 1, 3]))), shape=(5, 5))
    g = to_graph(A, directed=False)
    assert g.n == 5 and g.n_links == 2  # (0,1),(1,0); the self loop (3,3) is dropped; 2 and 4 isolated


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="empty graph"):
        to_graph(nx.Graph())
    with pytest.raises(ValueError, match="empty graph"):
        to_graph(sp.csr_array((0, 0)))
    with pytest.raises(ValueError, match="non-negative"):
        to_graph(nx.Graph([(0, 1, {"weight": -1.0})]))
    with pytest.raises(ValueError, match="non-negative"):
        to_graph(np.array([[0, np.nan], [1, 0]]))
    with pytest.raises(ValueError, match="square"):
        to_graph(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="networkx graph"):
        to_graph([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"shape \(2, E\)"):
        from_edge_index(3, np.zeros((3, 2), dtype=int))
    with pytest.raises(ValueError, match="integers in"):
        from_edge_index(3, np.array([[0], [5]]))


def test_dense_is_refused_above_the_limit_naming_the_sparse_path():
    with pytest.raises(ValueError, match="kdtree_mismatch"):
        check_dense_size(DENSE_MAX_NODES + 1, DENSE_MAX_NODES, "x")
    g = from_edge_index(DENSE_MAX_NODES + 1, np.array([[0], [1]]))
    with pytest.raises(ValueError, match="sparse path"):
        g.dense()


def test_block_cliques_is_the_disjoint_union_of_complete_graphs():
    g = block_cliques(12, 4)
    ref = nx.disjoint_union_all([nx.complete_graph(3) for _ in range(4)])
    assert np.array_equal(g.keys, to_graph(ref).keys)
    with pytest.raises(ValueError, match="1 <= b <= n"):
        block_cliques(3, 4)


def test_planted_rgg_matches_networkx_on_the_same_positions():
    g, pos = planted_rgg(300, 2, r=0.1, seed=3)
    ref = nx.random_geometric_graph(300, 0.1, dim=2, pos={k: pos[k] for k in range(300)})
    assert np.array_equal(g.keys, to_graph(ref).keys)
    assert g.n_links > 0
