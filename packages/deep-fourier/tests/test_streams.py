"""The four scenarios: what each task holds, by counting."""

from __future__ import annotations

import pytest
import torch
from deep_fourier.streams import make_stream
from paperkit.vision import load_digits


@pytest.fixture(scope="module")
def data():
    return load_digits(8, seed=0, flatten=True)


def test_random_labels_fixed_images_fresh_uniform_labels(data):
    tasks = make_stream("random_labels", data, n_tasks=4, seed=0, n=512)
    assert all(torch.equal(t.x_train, tasks[0].x_train) for t in tasks) and tasks[0].x_train.shape == (
        512,
        64,
    )
    assert not torch.equal(tasks[0].y_train, tasks[1].y_train)
    counts = torch.bincount(torch.cat([t.y_train for t in tasks]), minlength=10).float()
    assert counts.min() > 0.7 * counts.mean() and tasks[0].x_test is None
    again = make_stream("random_labels", data, n_tasks=4, seed=0, n=512)
    assert all(torch.equal(a.y_train, b.y_train) for a, b in zip(tasks, again, strict=True))


def test_permuted_applies_one_permutation_to_train_and_test(data):
    tasks = make_stream("permuted", data, n_tasks=3, seed=1)
    for t in tasks:
        # each pixel column of the task is some original column, the same for train and test
        col = [int((c == data.x_train.T).all(1).nonzero()[0]) if c.any() else -1 for c in t.x_train.T[:10]]
        for j, src in enumerate(col):
            if src >= 0:
                assert torch.equal(t.x_test[:, j], data.x_test[:, src])
        assert torch.equal(t.y_train, data.y_train)
    assert not torch.equal(tasks[0].x_train, tasks[1].x_train)


def test_label_noise_diminishes_as_specified(data):
    T = 5
    tasks = make_stream("label_noise", data, n_tasks=T, seed=2)
    for t, task in enumerate(tasks, start=1):
        wrong = (task.y_train != data.y_train).float().mean().item()
        assert wrong == pytest.approx(0.9 * (1 - t / T) * 0.9, abs=0.04)  # a random label is right w.p. 0.1
        assert torch.equal(task.y_test, data.y_test)
    assert (tasks[-1].y_train == data.y_train).all()


def test_class_incremental_adds_classes(data):
    tasks = make_stream("class_incremental", data, n_tasks=5, seed=3)
    seen = [set(t.y_train.unique().tolist()) for t in tasks]
    assert [len(s) for s in seen] == [2, 4, 6, 8, 10]
    assert all(seen[i] < seen[i + 1] for i in range(len(seen) - 1))
    assert set(tasks[0].y_test.unique().tolist()) == seen[0]


def test_bad_inputs_and_empty_stream(data):
    assert make_stream("permuted", data, n_tasks=0, seed=0) == []
    with pytest.raises(ValueError, match="scenario"):
        make_stream("rotations", data, n_tasks=2, seed=0)
    with pytest.raises(ValueError, match="n_tasks"):
        make_stream("class_incremental", data, n_tasks=11, seed=0)
    with pytest.raises(ValueError, match="flattened"):
        make_stream("permuted", load_digits(8), n_tasks=2, seed=0)
