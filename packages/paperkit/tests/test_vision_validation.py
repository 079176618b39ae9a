"""Every public function of paperkit.vision refuses bad input with an error naming the argument."""

from __future__ import annotations

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
v = pytest.importorskip("paperkit.vision")

NAN = float("nan")
g = torch.Generator().manual_seed(0)
x = torch.rand(4, 1, 8, 8)
y = torch.zeros(4, dtype=torch.long)


@functools.cache
def _m():
    return v.mlp(64, [8], 10)


@functools.cache
def _cm():
    return v.small_cnn()


CASES = [
    ("acc logits str", lambda: v.accuracy("a", y), "logits"),
    ("acc shape", lambda: v.accuracy(torch.zeros(3, 10), y), "y"),
    ("acc nan", lambda: v.accuracy(torch.full((4, 10), NAN), y), "logits"),
    ("acc y float", lambda: v.accuracy(torch.zeros(4, 10), y.float()), "y"),
    ("acc empty", lambda: v.accuracy(torch.zeros(0, 10), y[:0]), "y"),
    ("noise gen", lambda: v.add_noise(x, None), "generator"),
    ("noise std nan", lambda: v.add_noise(x, g, std=NAN), "std"),
    ("noise std -1", lambda: v.add_noise(x, g, std=-1), "std"),
    ("noise clip bad", lambda: v.add_noise(x, g, clip=(1, 0)), "clip"),
    ("noise x str", lambda: v.add_noise("x", g), "x"),
    ("noise x 2d", lambda: v.add_noise(torch.rand(4, 64), g), "x"),
    ("noise x nan", lambda: v.add_noise(torch.full((1, 1, 8, 8), NAN), g), "x"),
    ("compose nonc", lambda: v.compose(1), "augment"),
    ("contrast sev 0", lambda: v.contrast(x, severity=0), "severity"),
    ("contrast sev bool", lambda: v.contrast(x, severity=True), "severity"),
    ("contrast x", lambda: v.contrast("x"), "x"),
    ("corrupt name", lambda: v.corrupt(x, "fog", 1), "name"),
    ("corrupt sev 6", lambda: v.corrupt(x, "contrast", 6), "severity"),
    ("corrupt noise nogen", lambda: v.corrupt(x, "gaussian_noise", 1), "generator"),
    ("count str", lambda: v.count_parameters("m"), "model"),
    ("cutout gen", lambda: v.cutout(x, "g"), "generator"),
    ("da size", lambda: v.digits_arrays(12), "size"),
    ("da size bool", lambda: v.digits_arrays(True), "size"),
    ("eval model", lambda: v.evaluate("m", x.flatten(1), y), "model"),
    ("eval bs 0", lambda: v.evaluate(_m(), x.flatten(1), y, batch_size=0), "batch_size"),
    ("eval y shape", lambda: v.evaluate(_m(), x.flatten(1), y[:2]), "y"),
    ("eval x nan", lambda: v.evaluate(_m(), torch.full((4, 64), NAN), y), "x"),
    ("eval empty", lambda: v.evaluate(_m(), torch.zeros(0, 64), y[:0]), "x"),
    ("blur sev 0", lambda: v.gaussian_blur(x, severity=0), "severity"),
    ("kernel sigma 0", lambda: v.gaussian_kernel(0), "sigma"),
    ("kernel sigma nan", lambda: v.gaussian_kernel(NAN), "sigma"),
    ("kernel dev", lambda: v.gaussian_kernel(1.0, device="tpu"), "device"),
    ("kernel dtype", lambda: v.gaussian_kernel(1.0, dtype="f"), "dtype"),
    ("gnoise gen", lambda: v.gaussian_noise(x, None), "generator"),
    ("gnoise sev", lambda: v.gaussian_noise(x, g, severity=9), "severity"),
    ("ld size", lambda: v.load_digits(10), "size"),
    ("ld tf 0", lambda: v.load_digits(test_fraction=0), "test_fraction"),
    ("ld tf 1", lambda: v.load_digits(test_fraction=1.0), "test_fraction"),
    ("ld tf nan", lambda: v.load_digits(test_fraction=NAN), "test_fraction"),
    ("ld val int", lambda: v.load_digits(validation=1), "validation"),
    ("ld norm", lambda: v.load_digits(normalize="x"), "normalize"),
    ("ld flatten str", lambda: v.load_digits(flatten="yes"), "flatten"),
    ("ld dev", lambda: v.load_digits(device="tpu"), "device"),
    ("ld dev cuda", lambda: v.load_digits(device="cuda:5"), "device"),
    ("ld seed", lambda: v.load_digits(seed=-1), "seed"),
    ("opt model", lambda: v.make_optimizer("m"), "model"),
    ("opt name", lambda: v.make_optimizer(_m(), "rmsprop2"), "name"),
    ("opt lr nan", lambda: v.make_optimizer(_m(), lr=NAN), "lr"),
    ("opt wd -1", lambda: v.make_optimizer(_m(), weight_decay=-1), "weight_decay"),
    ("opt mom 2", lambda: v.make_optimizer(_m(), "sgd", momentum=2), "momentum"),
    ("mlp in 0", lambda: v.mlp(0, [8], 10), "in_dim"),
    ("mlp widths int", lambda: v.mlp(64, 8, 10), "widths"),
    ("mlp widths 0", lambda: v.mlp(64, [0], 10), "widths"),
    ("mlp widths bool", lambda: v.mlp(64, [True], 10), "widths"),
    ("mlp out bool", lambda: v.mlp(64, [8], True), "out_dim"),
    ("mlp act", lambda: v.mlp(64, [8], 10, activation="gelu2"), "activation"),
    ("mlp exp 0", lambda: v.mlp(64, [8], 10, expansion=0), "expansion"),
    ("mlp norm", lambda: v.mlp(64, [8], 10, norm="x"), "norm"),
    ("mlp dev", lambda: v.mlp(64, [8], 10, device="tpu"), "device"),
    ("pgd model", lambda: v.pgd_linf("m", x, y, eps=0.1), "model"),
    ("pgd eps nan", lambda: v.pgd_linf(_cm(), x, y, eps=NAN), "eps"),
    ("pgd eps -1", lambda: v.pgd_linf(_cm(), x, y, eps=-1), "eps"),
    ("pgd steps 0", lambda: v.pgd_linf(_cm(), x, y, eps=0.1, steps=-1), "steps"),
    ("pgd alpha", lambda: v.pgd_linf(_cm(), x, y, eps=0.1, alpha=-1), "alpha"),
    ("pgd y shape", lambda: v.pgd_linf(_cm(), x, y[:2], eps=0.1), "y"),
    ("pgd x nan", lambda: v.pgd_linf(_cm(), torch.full_like(x, NAN), y, eps=0.1), "x"),
    ("pgd clip", lambda: v.pgd_linf(_cm(), x, y, eps=0.1, clip=(1, 0)), "clip"),
    ("pgd rs", lambda: v.pgd_linf(_cm(), x, y, eps=0.1, random_start="y"), "random_start"),
    ("pred model", lambda: v.predict("m", x), "model"),
    ("pred bs", lambda: v.predict(_m(), x.flatten(1), batch_size=True), "batch_size"),
    ("pred x", lambda: v.predict(_m(), [1, 2]), "x"),
    ("crop pad -1", lambda: v.random_crop(x, g, padding=-1), "padding"),
    ("flip p 2", lambda: v.random_flip(x, g, p=2), "p"),
    ("flip p nan", lambda: v.random_flip(x, g, p=NAN), "p"),
    ("shift -1", lambda: v.random_shift(x, g, max_shift=-1), "max_shift"),
    ("cnn in 0", lambda: v.small_cnn(0), "in_channels"),
    ("cnn cls 0", lambda: v.small_cnn(1, 0), "n_classes"),
    ("cnn ch int", lambda: v.small_cnn(channels=16), "channels"),
    ("cnn img 0", lambda: v.small_cnn(image_size=0), "image_size"),
    ("cnn bn", lambda: v.small_cnn(batch_norm="y"), "batch_norm"),
    ("cnn dev", lambda: v.small_cnn(device="tpu"), "device"),
    ("ss labels", lambda: v.stratified_split("abc", 0.2, 0), "labels"),
    ("ss frac 0", lambda: v.stratified_split(np.arange(10) % 2, 0.0, 0), "fraction"),
    ("ss frac nan", lambda: v.stratified_split(np.arange(10) % 2, NAN, 0), "fraction"),
    ("ss seed", lambda: v.stratified_split(np.arange(10) % 2, 0.2, 1.5), "seed"),
    ("ss empty", lambda: v.stratified_split(np.array([], dtype=int), 0.2, 0), "labels"),
    ("ss 2d", lambda: v.stratified_split(np.zeros((2, 2), dtype=int), 0.2, 0), "labels"),
    ("te model", lambda: v.train_epochs("m", x, y, epochs=1), "model"),
    ("te epochs 0", lambda: v.train_epochs(_cm(), x, y, epochs=-1), "epochs"),
    ("te bs 0", lambda: v.train_epochs(_cm(), x, y, epochs=1, batch_size=0), "batch_size"),
    ("te opt", lambda: v.train_epochs(_cm(), x, y, epochs=1, optimizer="x"), "optimizer"),
    ("te lr", lambda: v.train_epochs(_cm(), x, y, epochs=1, lr=NAN), "lr"),
    ("te aug", lambda: v.train_epochs(_cm(), x, y, epochs=1, augment=3), "augment"),
    ("te threads", lambda: v.train_epochs(_cm(), x, y, epochs=1, threads=0), "threads"),
    ("te y", lambda: v.train_epochs(_cm(), x, y[:2], epochs=1), "y"),
    ("te x nan", lambda: v.train_epochs(_cm(), torch.full_like(x, NAN), y, epochs=1), "x"),
    (
        "tr dy shape",
        lambda: v.translate(x, torch.zeros(3, dtype=torch.long), torch.zeros(4, dtype=torch.long)),
        "dy",
    ),
    ("tr dy float", lambda: v.translate(x, torch.zeros(4), torch.zeros(4, dtype=torch.long)), "dy"),
    (
        "tr x",
        lambda: v.translate("x", torch.zeros(4, dtype=torch.long), torch.zeros(4, dtype=torch.long)),
        "x",
    ),
]


@pytest.mark.parametrize(("call", "fragment"), [pytest.param(c, f, id=i) for i, c, f in CASES])
def test_bad_input_is_refused_naming_the_argument(call, fragment):
    with pytest.raises((TypeError, ValueError), match=fragment):
        call()


def test_every_public_function_has_a_case():
    import inspect

    funcs = {n for n in v.__all__ if inspect.isfunction(getattr(v, n))}
    prefixes = {
        "accuracy": "acc", "add_noise": "noise", "compose": "compose", "contrast": "contrast",
        "corrupt": "corrupt", "count_parameters": "count", "cutout": "cutout", "digits_arrays": "da",
        "evaluate": "eval", "gaussian_blur": "blur", "gaussian_kernel": "kernel", "gaussian_noise": "gnoise",
        "load_digits": "ld", "make_optimizer": "opt", "mlp": "mlp", "pgd_linf": "pgd", "predict": "pred",
        "random_crop": "crop", "random_flip": "flip", "random_shift": "shift", "small_cnn": "cnn",
        "stratified_split": "ss", "train_epochs": "te", "translate": "tr",
    }  # fmt: skip
    assert funcs == set(prefixes)
    ids = {i.split()[0] for i, _, _ in CASES}
    assert set(prefixes.values()) <= ids
