"""The tracer and executor against hand-written hooks and properties a wrong interleaving breaks."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from intervention_graph import Graph, GraphError, Node, Ref, execute, wrap
from torch import nn

pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


class Net(nn.Module):
    """Three linear layers, the middle one applied twice (a reused block: call 0 and call 1)."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.a, self.b, self.c = (nn.Linear(4, 4).double() for _ in range(3))
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64))
        self.unused = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(torch.tanh(self.b(torch.tanh(self.b(torch.tanh(self.a(x)))))))


@pytest.fixture
def net() -> Net:
    return Net()


X = torch.linspace(-1, 1, 24, dtype=torch.float64).reshape(6, 4)


def hooked(net: Net, x: torch.Tensor, edits: dict[str, object]) -> dict[str, torch.Tensor]:
    """Hand-written hooks: record a/b/c outputs (b per call), apply ``edits`` {name: fn(out) -> out}."""
    seen: dict[str, torch.Tensor] = {}
    calls = {"b": 0}

    def make(name: str):
        def hook(module, args, out):
            key = name
            if name == "b":
                key = f"b{calls['b']}"
                calls["b"] += 1
            if key in edits:
                out = edits[key](out)
            seen[key] = out
            return out

        return hook

    handles = [getattr(net, n).register_forward_hook(make(n)) for n in "abc"]
    with torch.no_grad():
        net(x)
    for h in handles:
        h.remove()
    return seen


def test_setter_changes_later_layers_only_and_equals_hooks(net: Net) -> None:
    m = wrap(net)
    with m.trace(X):
        a = m.a.output.save()
        m.b.output = m.b.output * 2.0
        b1 = m.b.next().output.save()
        c = m.c.output.save()
    ref = hooked(net, X, {"b0": lambda o: o * 2.0})
    plain = hooked(net, X, {})
    assert torch.equal(a.value, plain["a"])  # before the edit: unchanged
    assert torch.equal(b1.value, ref["b1"]) and torch.equal(c.value, ref["c"])
    assert not torch.allclose(c.value, plain["c"])


def test_call_index_reads_the_two_calls_of_a_reused_module(net: Net) -> None:
    m = wrap(net)
    with m.trace(X):
        first, second = m.b.output.save(), m.b.next().output.save()
    plain = hooked(net, X, {})
    assert torch.equal(first.value, plain["b0"]) and torch.equal(second.value, plain["b1"])
    assert not torch.equal(first.value, second.value)


def test_read_twice_read_then_write_and_write_then_read(net: Net) -> None:
    m = wrap(net)
    with m.trace(X):
        r1, r2 = m.a.output.save(), m.a.output.save()
        m.a.output[:, 0] = 5.0
        after = m.a.output.save()
    assert torch.equal(r1.value, r2.value)
    assert torch.all(after.value[:, 0] == 5.0)


def test_invokes_of_different_sizes_see_their_rows_and_write_only_them(net: Net) -> None:
    m = wrap(net)
    x1, x2, x3 = X[:1], X[1:3], X[3:]
    with m.trace() as tr:
        with tr.invoke(x1):
            o1 = m.c.output.save()
        with tr.invoke(x2):
            m.a.output = m.a.output * 0.0
            o2 = m.c.output.save()
        with tr.invoke(x3):
            o3 = m.c.output.save()
    plain = hooked(net, X, {})
    assert o1.value.shape == (1, 4) and o2.value.shape == (2, 4) and o3.value.shape == (3, 4)
    assert torch.equal(o1.value, plain["c"][:1]) and torch.equal(o3.value, plain["c"][3:])
    zeroed = hooked(net, X, {"a": lambda o: torch.cat([o[:1], o[1:3] * 0.0, o[3:]])})  # same batch: exact
    assert torch.equal(o2.value, zeroed["c"][1:3])


def test_an_earlier_write_from_a_later_value_is_an_ordering_error_and_hooks_go(net: Net) -> None:
    m = wrap(net)
    with pytest.raises(GraphError, match="ordering error"), m.trace(X):
        m.a.output = m.c.output
    assert all(len(getattr(net, n)._forward_hooks) == 0 for n in "abc")


def test_a_module_that_never_runs_is_named_and_hooks_are_removed(net: Net) -> None:
    m = wrap(net)
    with pytest.raises(GraphError, match=r"never executed.*unused"), m.trace(X):
        m.unused.output.save()
    with pytest.raises(GraphError, match="called 2 time"), m.trace(X):
        m.b.next(2).output.save()
    assert len(net.unused._forward_hooks) == 0 and len(net.b._forward_pre_hooks) == 0


def test_intermediate_values_are_freed_after_their_last_consumer(net: Net) -> None:
    refs: list[weakref.ref] = []

    class Spy(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = x * 1.0
            refs.append(weakref.ref(y))
            return y

    model = nn.Sequential(Spy(), nn.Linear(4, 4).double(), nn.Tanh())
    g = Graph(
        (Node(0, "get", module="0"), Node(1, "apply", op="sum", args=(Ref(0),)), Node(2, "get", module="2")),
        {"s": 1, "out": 2},
    )
    saved = execute(g, model, [X])
    gc.collect()
    assert refs[0]() is None  # the Spy output was consumed by node 1 and then dropped
    torch.testing.assert_close(saved["s"], (X * 1.0).sum())


def test_inputs_getter_and_input_setter(net: Net) -> None:
    m = wrap(net)
    with m.trace(X):
        args_kwargs = m.a.inputs.save()
        m.c.input = m.c.input * 0.0
        out = m.c.output.save()
    args, kwargs = args_kwargs.value
    assert torch.equal(args[0], X) and kwargs == {}
    assert torch.equal(out.value, net.c.bias.detach().expand(6, 4))


def test_a_proxy_in_control_flow_or_outside_its_trace_is_refused(net: Net) -> None:
    m = wrap(net)
    with m.trace(X):
        positive = m.a.output.sum() > 0
        with pytest.raises(TypeError, match="control flow"):
            bool(positive)
        m.a.output.save()
    with m.trace(X):
        p = m.a.output
        p.save()
    with pytest.raises(RuntimeError, match="trace has ended"):
        p + 1
    with pytest.raises(RuntimeError, match=r"inside model\.trace"):
        _ = m.a.output
    with pytest.raises(AttributeError, match="no submodule"):
        _ = m.nothing
    with pytest.raises(TypeError, match="allow-list"), m.trace(X):
        torch.sigmoid(m.a.output)
    with pytest.raises(ValueError, match="needs inputs"), m.trace():
        pass


def test_graph_validation_names_the_node() -> None:
    with pytest.raises(GraphError, match="earlier nodes"):
        Graph((Node(0, "apply", op="neg", args=(Ref(0),)),), {}).validate()
    with pytest.raises(GraphError, match="allow-list"):
        Graph((Node(0, "apply", op="__import__", args=("os",)),), {}).validate()
    with pytest.raises(GraphError, match="has no module"):
        Graph((Node(0, "get", module="x.y"),), {}).validate(frozenset({"", "a"}))
    with pytest.raises(GraphError, match="refers to node"):
        Graph((Node(0, "get", module="a"),), {"s": 3}).validate()


def _stopped_after_b(m) -> tuple:
    with m.trace(X) as tr:
        a, b0 = m.a.output.save(), m.b.output.save()
        tr.stop()
    return a.value, b0.value


def test_stop_skips_the_later_modules_and_keeps_the_saves(net: Net) -> None:
    calls: list[int] = []
    handle = net.c.register_forward_hook(lambda *args: calls.append(1))
    try:
        a, b0 = _stopped_after_b(wrap(net))
    finally:
        handle.remove()
    plain = hooked(net, X, {})
    assert calls == [] and torch.equal(a, plain["a"]) and torch.equal(b0, plain["b0"])
    assert not net.a._forward_hooks and not net.b._forward_pre_hooks


def _save_after_stop(m) -> None:
    with m.trace(X) as tr:
        tr.stop()
        m.c.output.save()


def test_a_node_after_a_stop_never_executes(net: Net) -> None:
    with pytest.raises(GraphError, match="never executed"):
        _save_after_stop(wrap(net))
    assert not net.c._forward_hooks
