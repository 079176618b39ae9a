"""An on-disk cache of trained models, so quick runs and tests reuse a base model instead of retraining it.

An entry is keyed by a SHA-256 of the training config, the seed and the package version (change any of them
and the model is trained anew). It is a folder ``<root>/<key>/`` holding ``weights.pt`` (the state dict,
written by ``torch.save``) and ``meta.json`` (the key's inputs and what the training returned). Entries are
written to a temporary folder in ``root`` and renamed into place, so a reader never sees a half-written
entry; weights are read with ``torch.load(weights_only=True)``, which loads tensors and plain containers
only and refuses any other pickled object.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from paperkit.lm.models import available_device

#: The environment variable that moves the default cache folder.
CACHE_ENV = "PAPERKIT_MODEL_CACHE"


def default_cache_dir() -> Path:
    """``$PAPERKIT_MODEL_CACHE`` if set, else ``~/.cache/paperkit/models``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "paperkit" / "models"


def _plain(value: Any, where: str) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"config keys must be strings; {where} has key {k!r}")
            out[k] = _plain(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        f"config value {where} is a {type(value).__name__}; the cache key needs JSON values "
        "(numbers, strings, bools, None, lists, dicts, dataclasses of them)"
    )


def cache_key(config: Any, *, seed: int, version: str) -> str:
    """The 64-hex SHA-256 of ``{"config", "seed", "version"}`` as canonical JSON (sorted keys).

    ``config`` is a mapping or a dataclass of JSON values (tuples count as lists), so a dataclass and the
    dict of its fields give the same key."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(version, str) or not version:
        raise ValueError(f"version must be a non-empty string (the package version), got {version!r}")
    plain = _plain(config, "config")
    if not isinstance(plain, dict):
        raise TypeError(f"config must be a mapping or a dataclass, got {type(config).__name__}")
    text = json.dumps({"config": plain, "seed": seed, "version": version}, sort_keys=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class CachedModel:
    """What :func:`cached_model` returns.

    Attributes:
        model: the trained model, on the device asked for.
        info: the JSON dict the training function returned (e.g. its losses), read back on a hit.
        hit: True when the weights came from the cache (training did not run).
        path: the entry's folder.
    """

    model: torch.nn.Module
    info: dict[str, Any]
    hit: bool
    path: Path


def cached_model(
    config: Any,
    *,
    seed: int,
    version: str,
    make: Callable[[], torch.nn.Module],
    train: Callable[[torch.nn.Module], Mapping[str, Any] | None],
    root: str | os.PathLike[str] | None = None,
    device: str = "cpu",
) -> CachedModel:
    """The model ``train(make())`` would give, from the cache when an entry for the key exists.

    Args:
        config, seed, version: the key (:func:`cache_key`); put everything that changes the trained
            weights in ``config`` (architecture, data size, steps, lr, ...); ``version`` is the calling
            package's version (``paperkit.package_version(...)``), so a new release retrains.
        make: builds the untrained model on ``device`` (called on a hit too, then the weights are loaded
            into it with ``strict=True``).
        train: trains the model in place; returns a JSON-able dict stored with the weights, or None.
        root: the cache folder (default :func:`default_cache_dir`).
        device: where the returned model lives.

    Raises ValueError when an entry's weights do not fit the model ``make`` builds, or cannot be read
    safely (an entry holding anything but tensors and plain containers is refused, never unpickled).
    """
    key = cache_key(config, seed=seed, version=version)
    dev = available_device(device)
    base = Path(root) if root is not None else default_cache_dir()
    folder = base / key
    weights, meta = folder / "weights.pt", folder / "meta.json"
    model = make()
    if weights.is_file() and meta.is_file():
        try:
            state = torch.load(weights, map_location=dev, weights_only=True)
            model.load_state_dict(state, strict=True)
        except Exception as err:  # every failure means the same: the entry is unusable
            raise ValueError(
                f"the cached model {str(folder)!r} cannot be loaded safely into the model make() builds "
                f"({type(err).__name__}: {str(err)[:200]}); delete the folder to retrain"
            ) from err
        info = json.loads(meta.read_text())["info"]
        return CachedModel(model, info, True, folder)
    info = dict(train(model) or {})
    record = {"key": key, "config": _plain(config, "config"), "seed": seed, "version": version, "info": info}
    text = json.dumps(record, sort_keys=True, indent=1, allow_nan=False)  # refuses non-JSON info early
    base.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=base))
    try:
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp / "weights.pt")
        (tmp / "meta.json").write_text(text)
        try:
            os.replace(tmp, folder)  # atomic; fails if another process wrote the same entry first
        except OSError:
            if not (weights.is_file() and meta.is_file()):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return CachedModel(model, info, False, folder)
