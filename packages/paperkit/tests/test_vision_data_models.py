"""paperkit.vision data loaders, model factories and the epoch trainer."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

from paperkit.vision import (  # noqa: E402
    count_parameters,
    digits_arrays,
    evaluate,
    load_digits,
    mlp,
    random_shift,
    small_cnn,
    stratified_split,
    train_epochs,
)


def _disk_dp_reference(seed: int, validation: bool):
    """disk-dp's loader as it stands (packages/disk-dp/src/disk_dp/data.py), restated as an oracle."""
    from sklearn import datasets

    bunch = datasets.load_digits()
    x, y = np.asarray(bunch.data, dtype=np.float64), np.asarray(bunch.target, dtype=np.int64)

    def split(labels, frac, s):
        rng = np.random.default_rng(s)
        first, second = [], []
        for c in np.unique(labels):
            idx = rng.permutation(np.flatnonzero(labels == c))
            k = round(frac * len(idx))
            second.append(idx[:k])
            first.append(idx[k:])
        return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))

    tr, te = split(y, 0.2, seed)
    if validation:
        tr2, va = split(y[tr], 0.1, seed + 1)
        tr, te = tr[tr2], tr[va]
    mean, std = x[tr].mean(0), x[tr].std(0)
    std[std == 0] = 1.0
    x = (x - mean) / std
    return x[tr].astype(np.float32), y[tr], x[te].astype(np.float32), y[te]


@pytest.mark.parametrize(("seed", "validation"), [(0, False), (3, True), (3, False)])
def test_digits_reproduce_disk_dp_split_bit_for_bit(seed, validation):
    ref = _disk_dp_reference(seed, validation)
    got = load_digits(8, seed=seed, validation=validation, normalize="standardize", flatten=True)
    for a, b in zip(ref, (got.x_train, got.y_train, got.x_test, got.y_test), strict=True):
        np.testing.assert_array_equal(a, b.numpy())


def test_digits_equal_scikit_learns_loader():
    from sklearn import datasets

    bunch = datasets.load_digits()
    x, y = digits_arrays(8)
    np.testing.assert_array_equal(x * 16, bunch.images)
    np.testing.assert_array_equal(y, bunch.target)


def test_split_is_stratified_disjoint_and_seeded():
    _, y = digits_arrays()
    kept, held = stratified_split(y, 0.2, seed=5)
    assert len(np.intersect1d(kept, held)) == 0 and len(kept) + len(held) == len(y)
    for c in range(10):
        assert (y[held] == c).sum() == round(0.2 * (y == c).sum())
    again = stratified_split(y, 0.2, seed=5)[1]
    np.testing.assert_array_equal(held, again)
    assert not np.array_equal(held, stratified_split(y, 0.2, seed=6)[1])


def test_upsampled_16_is_bilinear_of_the_8x8_and_unit_scaled():
    x8, y8 = digits_arrays(8)
    x16, y16 = digits_arrays(16)
    np.testing.assert_array_equal(y8, y16)
    assert x16.shape == (1797, 16, 16) and x8.min() == 0.0 and x8.max() == 1.0
    # scale 2 bilinear, align_corners=False: output pixel 2i+1 (i < 7) is 3/4 x[i] + 1/4 x[i+1] on each axis
    w = np.zeros((16, 8))
    for o in range(16):
        src = min(max((o + 0.5) / 2 - 0.5, 0.0), 7.0)
        i0 = int(np.floor(src))
        i1 = min(i0 + 1, 7)
        w[o, i0] += 1 - (src - i0)
        w[o, i1] += src - i0
    np.testing.assert_allclose(x16, np.einsum("oi,nij,pj->nop", w, x8, w), atol=1e-6)
    split = load_digits(16, seed=0)
    assert split.shape == (1, 16, 16) and split.n == 1438 and split.name == "digits16"


def test_loader_rejects_bad_arguments():
    with pytest.raises(ValueError, match="size"):
        load_digits(12)
    with pytest.raises(ValueError, match="normalize"):
        load_digits(normalize="minmax")
    with pytest.raises(ValueError, match="fraction"):
        load_digits(test_fraction=1.0)


def test_models_are_seeded_and_widths_follow_expansion():
    a, b = mlp(64, [32, 16], 10, seed=3), mlp(64, [32, 16], 10, seed=3)
    state_before = torch.random.get_rng_state()
    c = mlp(64, [32, 16], 10, seed=4)
    assert torch.equal(torch.random.get_rng_state(), state_before)  # the global RNG is untouched
    for p, q, r in zip(a.parameters(), b.parameters(), c.parameters(), strict=True):
        assert torch.equal(p, q) and not torch.equal(p, r)
    assert count_parameters(a) == 64 * 32 + 32 + 32 * 16 + 16 + 16 * 10 + 10

    class CReLU(torch.nn.Module):
        def forward(self, z):
            return torch.cat([torch.relu(z), torch.relu(-z)], dim=1)

    d = mlp(64, [8], 10, activation=CReLU, expansion=2)
    assert d[-1].in_features == 16 and d(torch.zeros(2, 64)).shape == (2, 10)
    cnn = small_cnn(channels=(4, 6), image_size=8, activation=CReLU, expansion=2)
    assert cnn[-1].in_features == 12 and cnn(torch.zeros(3, 1, 8, 8)).shape == (3, 10)
    assert any(isinstance(m, torch.nn.BatchNorm2d) for m in cnn)
    with pytest.raises(ValueError, match="activation"):
        mlp(4, [4], 2, activation="swish")
    with pytest.raises(ValueError, match=r"widths\[1\]"):
        mlp(4, [4, 0], 2)
    with pytest.raises(ValueError, match="expansion"):
        mlp(4, [4], 2, activation="relu", expansion=2)


def test_trainer_learns_digits_deterministically(device):
    split = load_digits(8, seed=0, device=device)
    x, y = split.x_train[:600], split.y_train[:600]

    def fit():
        model = small_cnn(channels=(8, 16), seed=0, device=device)
        log = train_epochs(model, x, y, epochs=3, batch_size=32, lr=1e-2, seed=1)
        return model, log

    m1, log1 = fit()
    _, log2 = fit()
    np.testing.assert_array_equal(log1.loss, log2.loss)
    assert log1.steps == 3 * 19 and log1.loss[-1] < 0.5 * log1.loss[0]
    assert evaluate(m1, split.x_test, split.y_test) > 0.6  # chance is 0.1; 0.79 observed
    assert m1.training  # mode restored


def test_trainer_applies_augmentation_and_validates(device):
    x = torch.rand(8, 1, 8, 8, device=device)
    y = torch.zeros(8, dtype=torch.int64, device=device)
    model = mlp(64, [4], 2, device=device)
    seen = []

    def aug(xb, g):
        seen.append(xb.shape[0])
        return random_shift(xb, g, max_shift=1)

    log = train_epochs(model, x, y, epochs=2, batch_size=3, augment=aug)
    assert seen == [3, 3, 2, 3, 3, 2] and log.steps == 6
    empty = train_epochs(model, x, y, epochs=0)
    assert empty.steps == 0 and len(empty.loss) == 0
    with pytest.raises(ValueError, match="y must"):
        train_epochs(model, x, y.float(), epochs=1)
    with pytest.raises(ValueError, match="epochs"):
        train_epochs(model, x, y, epochs=-1)
    with pytest.raises(ValueError, match="optimizer"):
        train_epochs(model, x, y, epochs=1, optimizer="lbfgs")
