"""The JSON wire format: round trips, and everything it must refuse."""

from __future__ import annotations

import json

import pytest
import torch
from intervention_graph import Graph, GraphError, Node, Ref, WireLimits, from_json, to_json
from intervention_graph.serialize import DTYPES, decode_value, encode_value

pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


def sample_graph() -> Graph:
    return Graph(
        (
            Node(0, "get", module="a", io="output", call=1, rows=(2, 5), invoke=1),
            Node(1, "apply", op="getitem", args=(Ref(0), (slice(None, 3, None), Ellipsis, None))),
            Node(2, "apply", op="to", args=(Ref(1), torch.float16)),
            Node(3, "apply", op="add", args=(Ref(2), torch.tensor([1.0, float("nan")]))),
            Node(4, "set", module="b", io="input", args=(Ref(3),)),
            Node(5, "apply", op="sum", args=(Ref(1),), kwargs={"dim": -1, "keepdim": True}),
        ),
        {"x": 5},
    )


def test_round_trip_is_structurally_equal() -> None:
    g = sample_graph()
    back = from_json(to_json(g))
    assert back.saves == g.saves and len(back.nodes) == len(g.nodes)
    for a, b in zip(g.nodes, back.nodes, strict=True):
        assert (a.id, a.kind, a.op, a.module, a.io, a.call, a.rows, a.invoke) == (
            b.id, b.kind, b.op, b.module, b.io, b.call, b.rows, b.invoke,
        )  # fmt: skip
        assert repr(a.kwargs) == repr(b.kwargs)
    t = back.nodes[3].args[1]
    assert t.dtype == torch.float32 and t[0] == 1.0 and torch.isnan(t[1])
    assert back.nodes[1].args[1] == (slice(None, 3, None), Ellipsis, None)
    assert back.nodes[2].args[1] is torch.float16


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_every_dtype_and_a_0_dim_tensor_round_trip_bit_for_bit(dtype: str) -> None:
    g = torch.Generator().manual_seed(0)
    base = torch.randn(3, 2, generator=g) * 50
    for t in (base.to(DTYPES[dtype]), torch.tensor(7, dtype=DTYPES[dtype]), base[:0].to(DTYPES[dtype])):
        back = decode_value(json.loads(json.dumps(encode_value(t))))
        assert back.dtype == t.dtype and back.shape == t.shape
        assert torch.equal(back.reshape(-1).view(torch.uint8), t.reshape(-1).view(torch.uint8))  # the bits


def test_non_serialisable_constants_fail_at_to_json() -> None:
    for bad in (lambda x: x, open, object(), {1: 2}):
        g = Graph((Node(0, "apply", op="add", args=(1, bad)),), {})
        with pytest.raises(TypeError, match="cannot be sent"):
            to_json(g)


def mutate(edit) -> str:
    obj = json.loads(to_json(sample_graph()))
    edit(obj)
    return json.dumps(obj)


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda o: o["nodes"][1].update(op="eval"), "allow-list"),
        (lambda o: o["nodes"][1].update(op="__import__"), "allow-list"),
        (lambda o: o["nodes"][1].update(extra=1), "unexpected fields ['extra']"),
        (lambda o: o.update(code="print(1)"), "got fields"),
        (lambda o: o["nodes"][1].update(args=[{"ref": 9}]), "earlier nodes"),
        (lambda o: o["nodes"][0].update(args=[{"ref": 0}]), "earlier nodes"),  # a cycle
        (lambda o: o["nodes"][1].update(args=[{"pickle": "gASV"}]), "unknown value"),
        (lambda o: o["nodes"][3]["args"][1]["tensor"].update(shape=[-1]), "non-negative ints"),
        (lambda o: o["nodes"][3]["args"][1]["tensor"].update(shape=[1e400]), "non-negative ints"),
        (lambda o: o["nodes"][3]["args"][1]["tensor"].update(dtype="object"), "unknown tensor dtype"),
        (lambda o: o["nodes"][3]["args"][1]["tensor"].update(shape=[3]), "needs 12"),
        (lambda o: o["nodes"][0].update(kind="exec"), "unknown kind"),
        (lambda o: o["nodes"][0].update(io="weights"), "io must be one of"),
        (lambda o: o["nodes"][0].update(rows=[5, 2]), "rows must be"),
    ],
)
def test_malformed_graphs_are_refused(edit, fragment: str) -> None:
    with pytest.raises(GraphError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        from_json(mutate(edit))


def test_node_and_tensor_limits() -> None:
    text = to_json(sample_graph())
    with pytest.raises(GraphError, match="limit: nodes"):
        from_json(text, WireLimits(max_nodes=3))
    with pytest.raises(GraphError, match="tensor byte limit"):
        from_json(text, WireLimits(max_tensor_bytes=4))
