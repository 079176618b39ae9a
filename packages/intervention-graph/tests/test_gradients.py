"""Gradient reads and edits against retain_grad / register_hook / autograd.grad, bit for bit; misuse."""

from __future__ import annotations

import pytest
import torch
from intervention_graph import Graph, GraphError, Node, Ref, from_json, to_json, wrap
from intervention_graph.gradients import autograd_grads, graph_grads, hook_grads
from intervention_graph.models import copy_pairs, tiny_gpt2
from torch import nn

pytestmark = pytest.mark.usefixtures("torch_one_thread")  # tiny models: one thread is fastest


class Net(nn.Module):
    """Three float64 linear layers, the middle one applied twice (calls 0 and 1)."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.a, self.b, self.c = (nn.Linear(4, 4).double() for _ in range(3))
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(torch.tanh(self.b(torch.tanh(self.b(torch.tanh(self.a(x)))))))


X = torch.linspace(-1, 1, 24, dtype=torch.float64).reshape(6, 4)


def baseline(net: Net, x: torch.Tensor, edit: dict[str, float]) -> dict[str, torch.Tensor]:
    """Hand-written: forward hooks keep a, b0, b1; retain_grad, or register_hook scaling the gradient."""
    outs: dict[str, torch.Tensor] = {}
    arrived: dict[str, torch.Tensor] = {}
    calls = [0]

    def hook(name: str):
        def f(module, args, out):
            key = name if name != "b" else f"b{calls[0]}"
            calls[0] += name == "b"
            outs[key] = out
            if key in edit:
                out.register_hook(lambda g: (arrived.__setitem__(key, g.clone()), g * edit[key])[1])
            else:
                out.retain_grad()

        return f

    handles = [getattr(net, n).register_forward_hook(hook(n)) for n in "ab"]
    net(x).pow(2).sum().backward()
    for h in handles:
        h.remove()
    net.zero_grad(set_to_none=True)
    return {k: arrived[k] if k in arrived else v.grad for k, v in outs.items()}  # noqa: SIM401 (no eager .grad)


def traced(net: Net, x: torch.Tensor, edit: dict[str, float]) -> dict[str, torch.Tensor]:
    m = wrap(net)
    with m.trace(x):
        h = {"a": m.a.output, "b0": m.b.output, "b1": m.b.next().output}
        loss = (m.c.output**2).sum()
        with loss.backward():
            saved = {}
            for key in ("b1", "b0", "a"):  # reverse forward order
                saved[key] = h[key].grad.save()
                if key in edit:
                    h[key].grad = h[key].grad * edit[key]
    return {k: s.value for k, s in saved.items()}


@pytest.mark.parametrize("edit", [{}, {"b1": 0.0}, {"b1": 0.5, "b0": -2.0}], ids=["read", "zero", "scale"])
def test_gradient_reads_and_edits_equal_hand_written_hooks(edit: dict[str, float]) -> None:
    net = Net()
    ours, ref = traced(net, X, edit), baseline(net, X, edit)
    for key in ("a", "b0", "b1"):
        assert torch.equal(ours[key], ref[key]), key
    if edit:  # the edit reaches the earlier layers
        assert not torch.equal(ours["a"], traced(net, X, {})["a"])
    assert all(p.grad is None for p in net.parameters())  # autograd.grad: the model's .grad untouched
    assert not net.a._forward_hooks and not net.b._forward_hooks


def test_gradients_of_an_invoke_are_its_rows_and_an_edit_touches_only_them() -> None:
    net = Net()
    m = wrap(net)
    with m.trace() as tr:
        with tr.invoke(X[:2]):
            a1 = m.a.output
        with tr.invoke(X[2:]):
            a2, b2 = m.a.output, m.b.output
            loss = (m.c.output**2).sum()  # this invoke's rows only
            with loss.backward():
                b2.grad = b2.grad * 0.5
                g1, g2 = a1.grad.save(), a2.grad.save()
    assert g1.value.shape == (2, 4) and torch.equal(g1.value, torch.zeros(2, 4, dtype=torch.float64))
    assert torch.equal(g2.value, _rows_scaled(net, 0.5)[2:])  # b's first-call gradient halved in rows 2:
    assert not torch.equal(g2.value, _rows_scaled(net, 1.0)[2:])


def _rows_scaled(net: Net, scale: float) -> torch.Tensor:
    """Hand-written: loss on rows 2: of the batch, b's first-call gradient scaled in those rows."""
    keep: dict[str, torch.Tensor] = {}
    mask = torch.ones(6, 1, dtype=torch.float64)
    mask[2:] = scale

    def fa(module, args, out):
        keep["a"] = out
        out.retain_grad()

    def fb(module, args, out):
        if "b" not in keep:
            keep["b"] = out
            out.register_hook(lambda g: g * mask)

    hs = [net.a.register_forward_hook(fa), net.b.register_forward_hook(fb)]
    net(X)[2:].pow(2).sum().backward()
    for h in hs:
        h.remove()
    net.zero_grad(set_to_none=True)
    return keep["a"].grad


def test_gpt2_block_gradients_equal_retain_grad_register_hook_and_autograd_grad() -> None:
    model = tiny_gpt2(seed=0, n_layer=2, n_embd=32, dtype=torch.float64)
    d = copy_pairs(4, seed=0)
    ours = graph_grads(model, d.clean, d.answer)
    assert torch.equal(ours, hook_grads(model, d.clean, d.answer))
    assert torch.equal(ours, autograd_grads(model, d.clean, d.answer))
    edited = graph_grads(model, d.clean, d.answer, edit_layer=1, scale=0.0, position=15)
    assert torch.equal(edited, hook_grads(model, d.clean, d.answer, edit_layer=1, scale=0.0, position=15))
    assert not torch.equal(edited[0], ours[0]) and torch.equal(edited[1], ours[1])  # read before the edit


def _outside_block(m) -> None:
    with m.trace(X):
        _ = m.a.output.grad


def _nested_blocks(m) -> None:
    with m.trace(X):
        loss = m.c.output.sum()
        with loss.backward(), loss.backward():
            pass


def _non_scalar_loss(m) -> None:
    with m.trace(X):
        h = m.a.output
        with m.c.output.backward():
            h.grad.save()


def _earlier_edit_after_later_read(m) -> None:
    with m.trace(X):
        a, b = m.a.output, m.b.output
        with m.c.output.sum().backward():
            a.grad.save()
            b.grad = b.grad * 0.0  # b's gradient had passed before a's arrived


def _grad_of_a_later_module(m) -> None:
    with m.trace(X), m.a.output.sum().backward():
        m.c.output.grad.save()  # c runs after the loss: it has no gradient in this backward


def _grad_off_the_loss_path(m) -> None:
    with m.trace(X):
        h = m.b.output
        with (m.a.output**2).sum().backward():  # b's output is not on the loss's path
            h.grad.save()


def _edit_of_the_wrong_shape(m) -> None:
    with m.trace(X[:1]):
        h = m.a.output
        with m.c.output.sum().backward():
            h.grad = torch.zeros(3)


def _frozen_model(m) -> None:
    frozen = wrap(Net().requires_grad_(False))
    with frozen.trace(X):
        h = frozen.a.output
        with frozen.c.output.sum().backward():
            h.grad.save()


@pytest.mark.parametrize(
    ("case", "err", "fragment"),
    [
        (_outside_block, RuntimeError, "backward block"),
        (_nested_blocks, RuntimeError, "do not nest"),
        (_non_scalar_loss, GraphError, "one-element tensor"),
        (_earlier_edit_after_later_read, GraphError, "ordering error"),
        (_grad_of_a_later_module, GraphError, "no value yet"),
        (_grad_off_the_loss_path, GraphError, r"never executed.*gradient of node"),
        (_edit_of_the_wrong_shape, GraphError, r"has shape \(3,\)"),
        (_frozen_model, GraphError, "requires grad"),
    ],
)
def test_gradient_misuse_raises_clear_errors(case, err: type, fragment: str) -> None:
    net = Net()
    with pytest.raises(err, match=fragment):
        case(wrap(net))
    assert not net.a._forward_hooks and not net.c._forward_hooks
    assert all(p.grad is None for p in net.parameters())


def test_grad_nodes_round_trip_and_malformed_ones_are_refused() -> None:
    m = wrap(Net())
    with m.trace(X) as tr:
        h = m.a.output
        with m.c.output.sum().backward():
            h.grad = h.grad * 2.0
            h.grad.save()
    assert tr.graph is not None and from_json(to_json(tr.graph)) == tr.graph
    bad = Graph((Node(0, "get", module="a"), Node(1, "apply", op="grad", args=(Ref(0), Ref(0)))), {})
    with pytest.raises(GraphError, match="must refer to a backward node"):
        bad.validate()
    with pytest.raises(GraphError, match="takes 1 positional"):
        Graph((Node(0, "get", module="a"), Node(1, "apply", op="backward", args=(Ref(0), 1))), {}).validate()


@pytest.mark.parametrize(
    ("kw", "err", "fragment"),
    [
        ({"edit_layer": 5}, ValueError, "edit_layer"),
        ({"scale": float("nan")}, ValueError, "scale"),
        ({"position": -1}, ValueError, "position"),
        ({"answers": torch.zeros(3, dtype=torch.int64)}, TypeError, "answers"),
        ({"ids": torch.zeros(4, 16)}, TypeError, "ids"),
    ],
)
def test_gradient_tasks_check_their_arguments(kw: dict, err: type, fragment: str) -> None:
    model = tiny_gpt2(seed=0, n_layer=2, n_embd=32)
    d = copy_pairs(4, seed=0)
    args = {"ids": d.clean, "answers": d.answer} | kw
    with pytest.raises(err, match=fragment):
        graph_grads(model, args.pop("ids"), args.pop("answers"), **args)
