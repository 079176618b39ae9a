"""Every public entry of deep_fourier refuses bad input with a TypeError/ValueError naming the argument."""

from __future__ import annotations

import functools
import math

import deep_fourier as df
import numpy as np
import paperkit
import pytest
import torch
from paperkit.vision import load_digits
from torch import nn

NAN = float("nan")


@functools.cache
def _data():
    return load_digits(8, flatten=True)


@functools.cache
def _tasks():
    return tuple(df.make_stream("permuted", _data(), n_tasks=1, seed=0))


CASES = [
    ("FA omega NAN", lambda: df.FourierActivation(omega=NAN), "omega"),
    ("FA omega str", lambda: df.FourierActivation(omega="1"), "omega"),
    ("FA dim bool", lambda: df.FourierActivation(dim=True), "dim"),
    ("CReLU dim float", lambda: df.CReLU(dim=1.5), "dim"),
    ("Sine omega inf", lambda: df.Sine(omega=math.inf), "omega"),
    ("Sine omega 0", lambda: df.Sine(omega=0), "omega"),
    ("pre odd", lambda: df.pre_activations(7), "width"),
    ("pre 0", lambda: df.pre_activations(0), "width"),
    ("pre bool", lambda: df.pre_activations(True), "width"),
    ("pre mode", lambda: df.pre_activations(8, "x"), "width_mode"),
    ("DFFLinear odd", lambda: df.DFFLinear(4, 7), "out_features"),
    ("DFFLinear in 0", lambda: df.DFFLinear(0, 8), "in_features"),
    ("DFFLinear omega", lambda: df.DFFLinear(4, 8, omega=-1), "omega"),
    ("DFFConv k 0", lambda: df.DFFConv2d(1, 8, 0), "kernel_size"),
    ("DFFConv k bool", lambda: df.DFFConv2d(1, 8, True), "kernel_size"),
    ("DFFConv pad -1", lambda: df.DFFConv2d(1, 8, 3, padding=-1), "padding"),
    ("DFFConv in 0", lambda: df.DFFConv2d(0, 8), "in_channels"),
    ("net act", lambda: df.network("gelu", 64, (8,), 10), "activation"),
    ("net in 0", lambda: df.network("relu", 0, (8,), 10), "in_dim"),
    ("net widths int", lambda: df.network("relu", 64, 8, 10), "widths"),
    ("net widths neg relu", lambda: df.network("relu", 64, (-8,), 10), "widths"),
    ("net widths bool", lambda: df.network("relu", 64, (True,), 10), "widths"),
    ("net widths odd dff", lambda: df.network("dff", 64, (7,), 10), "widths"),
    ("net out 0", lambda: df.network("relu", 64, (8,), 0), "out_dim"),
    ("net mode", lambda: df.network("relu", 64, (8,), 10, width_mode="x"), "width_mode"),
    ("net seed", lambda: df.network("relu", 64, (8,), 10, seed=-1), "seed"),
    ("net device", lambda: df.network("relu", 64, (8,), 10, device="tpu"), "device"),
    ("net device cuda99", lambda: df.network("relu", 64, (8,), 10, device="cuda:99"), "device"),
    ("convert non seq", lambda: df.convert_activations(nn.Linear(2, 2)), "model"),
    ("convert conv", lambda: df.convert_activations(nn.Sequential(nn.Conv2d(1, 2, 3))), "model"),
    ("convert empty", lambda: df.convert_activations(nn.Sequential()), "model"),
    (
        "convert odd",
        lambda: df.convert_activations(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))),
        "out_features",
    ),
    (
        "convert mode",
        lambda: df.convert_activations(nn.Sequential(nn.Linear(2, 4), nn.ReLU()), width_mode="x"),
        "width_mode",
    ),
    ("l2 lam NAN", lambda: df.l2([torch.ones(2)], NAN), "lam"),
    ("l2 params empty", lambda: df.l2([], 1.0), "params"),
    ("l2 params non tensor", lambda: df.l2([1.0], 1.0), "params"),
    ("l2init len", lambda: df.l2_init([torch.ones(2)], [], 1.0), "init"),
    ("l2init shape", lambda: df.l2_init([torch.ones(2)], [torch.ones(3)], 1.0), "init"),
    ("l2init lam -1", lambda: df.l2_init([torch.ones(2)], [torch.ones(2)], -1.0), "lam"),
    ("penalty kind", lambda: df.penalty("l1", [torch.ones(2)], [torch.ones(2)], 1.0), "kind"),
    ("penalty lam NAN", lambda: df.penalty("none", [torch.ones(2)], [torch.ones(2)], NAN), "lam"),
    ("penalty lam str", lambda: df.penalty("l2", [torch.ones(2)], [torch.ones(2)], "x"), "lam"),
    ("sp alpha 2", lambda: df.shrink_perturb(nn.Linear(2, 2), alpha=2, sigma=0.1, seed=0), "alpha"),
    ("sp sigma NAN", lambda: df.shrink_perturb(nn.Linear(2, 2), alpha=0.5, sigma=NAN, seed=0), "sigma"),
    ("sp model", lambda: df.shrink_perturb("m", alpha=0.5, sigma=0.1, seed=0), "model"),
    ("sp noparams", lambda: df.shrink_perturb(nn.ReLU(), alpha=0.5, sigma=0.1, seed=0), "model"),
    ("stream scen", lambda: df.make_stream("x", _data(), n_tasks=1, seed=0), "scenario"),
    ("stream data", lambda: df.make_stream("permuted", "d", n_tasks=1, seed=0), "data"),
    ("stream ntasks bool", lambda: df.make_stream("permuted", _data(), n_tasks=True, seed=0), "n_tasks"),
    ("stream ntasks -1", lambda: df.make_stream("permuted", _data(), n_tasks=-1, seed=0), "n_tasks"),
    ("stream n 0", lambda: df.make_stream("random_labels", _data(), n_tasks=1, seed=0, n=0), "n"),
    (
        "stream noise 2",
        lambda: df.make_stream("label_noise", _data(), n_tasks=1, seed=0, max_noise=2),
        "max_noise",
    ),
    ("stream ci 11", lambda: df.make_stream("class_incremental", _data(), n_tasks=11, seed=0), "n_tasks"),
    ("stream unflat", lambda: df.make_stream("permuted", load_digits(8), n_tasks=1, seed=0), "data"),
    ("stream seed", lambda: df.make_stream("permuted", _data(), n_tasks=1, seed=1.5), "seed"),
    ("train model", lambda: df.train_continual("m", _tasks(), steps_per_task=1), "model"),
    ("train tasks", lambda: df.train_continual(nn.Linear(64, 10), "abc", steps_per_task=1), "tasks"),
    ("train tasks item", lambda: df.train_continual(nn.Linear(64, 10), [1], steps_per_task=1), "tasks"),
    (
        "train steps 0",
        lambda: df.train_continual(nn.Linear(64, 10), _tasks(), steps_per_task=0),
        "steps_per_task",
    ),
    ("train lr NAN", lambda: df.train_continual(nn.Linear(64, 10), _tasks(), steps_per_task=1, lr=NAN), "lr"),
    ("train reg", lambda: df.train_continual(nn.Linear(64, 10), _tasks(), steps_per_task=1, reg="l1"), "reg"),
    (
        "train probe 0",
        lambda: df.train_continual(nn.Linear(64, 10), _tasks(), steps_per_task=1, probe_size=0),
        "probe_size",
    ),
    (
        "train bs bool",
        lambda: df.train_continual(nn.Linear(64, 10), _tasks(), steps_per_task=1, batch_size=True),
        "batch_size",
    ),
    ("train wrong dim", lambda: df.train_continual(nn.Linear(32, 10), _tasks(), steps_per_task=1), "tasks"),
    (
        "train NAN x",
        lambda: df.train_continual(
            nn.Linear(64, 10),
            [df.Task(torch.full((4, 64), NAN), torch.zeros(4, dtype=torch.long))],
            steps_per_task=1,
        ),
        "x_train",
    ),
    (
        "train y float",
        lambda: df.train_continual(
            nn.Linear(64, 10), [df.Task(torch.zeros(4, 64), torch.zeros(4))], steps_per_task=1
        ),
        "y_train",
    ),
    (
        "train empty task",
        lambda: df.train_continual(
            nn.Linear(64, 10),
            [df.Task(torch.zeros(0, 64), torch.zeros(0, dtype=torch.long))],
            steps_per_task=1,
        ),
        "x_train",
    ),
    ("aoa NAN", lambda: df.average_online_accuracy(np.array([NAN])), "batch_accuracy"),
    ("aoa str", lambda: df.average_online_accuracy("abc"), "batch_accuracy"),
    ("aoa >1", lambda: df.average_online_accuracy(np.array([2.0])), "batch_accuracy"),
    ("dead model", lambda: df.dead_unit_fraction("m", torch.zeros(2, 64)), "model"),
    ("dead x", lambda: df.dead_unit_fraction(nn.Sequential(nn.Linear(64, 4), nn.ReLU()), "x"), "x"),
    (
        "dead x empty",
        lambda: df.dead_unit_fraction(nn.Sequential(nn.Linear(64, 4), nn.ReLU()), torch.zeros(0, 64)),
        "x",
    ),
    ("er NAN", lambda: df.effective_rank(torch.full((3, 3), NAN)), "h"),
    ("er 1d", lambda: df.effective_rank(torch.ones(3)), "h"),
    ("er empty", lambda: df.effective_rank(torch.ones(0, 3)), "h"),
    ("hf model", lambda: df.hidden_features("m", torch.zeros(2, 64)), "model"),
    ("hf x", lambda: df.hidden_features(nn.Linear(64, 4), [1]), "x"),
    ("run name", lambda: df.run_method("x", _tasks(), steps_per_task=1, seed=0), "name"),
    ("run lam NAN", lambda: df.run_method("dff", _tasks(), steps_per_task=1, seed=0, lam=NAN), "lam"),
    ("run tasks", lambda: df.run_method("dff", "abc", steps_per_task=1, seed=0), "tasks"),
    (
        "run widths odd",
        lambda: df.run_method("dff", _tasks(), widths=(7,), steps_per_task=1, seed=0),
        "widths",
    ),
    ("run device", lambda: df.run_method("dff", _tasks(), steps_per_task=1, seed=0, device="tpu"), "device"),
    (
        "run device mismatch",
        lambda: df.run_method("dff", _tasks(), steps_per_task=1, seed=0, device="meta"),
        "device",
    ),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("call", "fragment"), [pytest.param(c, f, id=i) for i, c, f in CASES])
def test_bad_input_is_refused_naming_the_argument(call, fragment):
    with pytest.raises((TypeError, ValueError), match=fragment):
        call()


def test_every_public_callable_has_a_case():
    named = " ".join(i for i, _, _ in CASES)
    short = {
        "FourierActivation": "FA", "CReLU": "CReLU", "DFFConv2d": "DFFConv", "DFFLinear": "DFFLinear",
        "Sine": "Sine", "pre_activations": "pre", "convert_activations": "convert", "network": "net",
        "l2": "l2 ", "l2_init": "l2init", "penalty": "penalty", "shrink_perturb": "sp",
        "make_stream": "stream",
        "train_continual": "train", "average_online_accuracy": "aoa", "dead_unit_fraction": "dead",
        "effective_rank": "er", "hidden_features": "hf", "run_method": "run",
    }  # fmt: skip
    records = {"ActivationSpec", "MethodInfo", "Task", "History"}  # frozen result/registry records
    callables = {
        n for n in paperkit.public_table("deep_fourier") if callable(getattr(df, n)) and n not in records
    }
    assert callables == set(short)
    assert all(s in named + " " for s in short.values())
