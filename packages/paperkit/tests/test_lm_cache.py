"""paperkit.lm.cache: keys, hits that skip training and restore the weights bit for bit, atomic entries,
and loading that never unpickles arbitrary objects."""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from paperkit.lm import char_tokenizer, tiny_causal_lm  # noqa: E402
from paperkit.lm.cache import CACHE_ENV, cache_key, cached_model, default_cache_dir  # noqa: E402

pytestmark = pytest.mark.usefixtures("torch_one_thread")


@dataclass(frozen=True)
class Cfg:
    d_model: int = 16
    steps: int = 2
    widths: tuple[int, ...] = (1, 2)


def test_cache_key_is_canonical_and_covers_config_seed_and_version():
    k = cache_key(Cfg(), seed=0, version="0.1.0")
    assert len(k) == 64 and k == cache_key(
        {"widths": [1, 2], "steps": 2, "d_model": 16}, seed=0, version="0.1.0"
    )
    others = {
        cache_key(Cfg(steps=3), seed=0, version="0.1.0"),
        cache_key(Cfg(), seed=1, version="0.1.0"),
        cache_key(Cfg(), seed=0, version="0.1.1"),
    }
    assert k not in others and len(others) == 3
    with pytest.raises(TypeError, match=r"config value config\.x is a set"):
        cache_key({"x": {1}}, seed=0, version="1")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        cache_key({}, seed=-1, version="1")
    with pytest.raises(ValueError, match="version must be a non-empty string"):
        cache_key({}, seed=0, version="")
    with pytest.raises(TypeError, match="mapping or a dataclass"):
        cache_key([1, 2], seed=0, version="1")


class _Trainer:
    def __init__(self):
        self.calls = 0

    def __call__(self, model):
        self.calls += 1
        with torch.no_grad():
            for p in model.parameters():
                p.add_(0.5)  # "training": weights differ from a fresh make()
        return {"losses": [1.5, 0.25]}


def _make():
    return tiny_causal_lm(char_tokenizer("ab"), n_layer=1, n_head=2, d_model=16, max_positions=8, seed=0)


def test_a_hit_skips_training_and_restores_the_weights(tmp_path):
    train = _Trainer()
    first = cached_model(Cfg(), seed=0, version="1.0", make=_make, train=train, root=tmp_path)
    second = cached_model(Cfg(), seed=0, version="1.0", make=_make, train=train, root=tmp_path)
    assert (first.hit, second.hit, train.calls) == (False, True, 1)
    assert second.info == {"losses": [1.5, 0.25]} and second.path == first.path
    a, b = first.model.state_dict(), second.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(b["lm_head.weight"], _make().state_dict()["lm_head.weight"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.path.name]  # no temporary folder left
    meta = json.loads((first.path / "meta.json").read_text())
    assert meta["seed"] == 0 and meta["version"] == "1.0" and meta["config"]["widths"] == [1, 2]
    third = cached_model(Cfg(), seed=1, version="1.0", make=_make, train=train, root=tmp_path)
    assert not third.hit and train.calls == 2


def test_a_failed_training_leaves_no_entry(tmp_path):
    def boom(model):
        raise RuntimeError("diverged")

    with pytest.raises(RuntimeError, match="diverged"):
        cached_model(Cfg(), seed=0, version="1.0", make=_make, train=boom, root=tmp_path)
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


class _Evil:
    ran = False

    def __reduce__(self):
        return (_mark_ran, ())


def _mark_ran():
    _Evil.ran = True
    return {}


def test_an_entry_holding_an_arbitrary_object_is_refused_not_unpickled(tmp_path):
    entry = cached_model(Cfg(), seed=0, version="1.0", make=_make, train=_Trainer(), root=tmp_path)
    with open(entry.path / "weights.pt", "wb") as fh:
        pickle.dump(_Evil(), fh, protocol=2)
    with pytest.raises(ValueError, match="cannot be loaded safely"):
        cached_model(Cfg(), seed=0, version="1.0", make=_make, train=_Trainer(), root=tmp_path)
    assert not _Evil.ran


def test_weights_that_do_not_fit_the_model_are_refused(tmp_path):
    cached_model(Cfg(), seed=0, version="1.0", make=_make, train=_Trainer(), root=tmp_path)

    def wider():
        return tiny_causal_lm(char_tokenizer("ab"), n_layer=1, n_head=2, d_model=32, max_positions=8)

    with pytest.raises(ValueError, match="delete the folder to retrain"):
        cached_model(Cfg(), seed=0, version="1.0", make=wider, train=_Trainer(), root=tmp_path)


def test_non_json_info_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(TypeError, match="not JSON serializable"):
        cached_model(Cfg(), seed=0, version="1.0", make=_make, train=lambda m: {"x": object()}, root=tmp_path)
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


def test_the_default_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv(CACHE_ENV)
    assert default_cache_dir().parts[-3:] == (".cache", "paperkit", "models")
