"""Results of a reproduction: the in-memory report, its JSON/Markdown renderings and atomic writing.

A run's files are one set. :class:`ResultsFolder` holds an output folder for one run: it is checked
(creatable, writable, not a file, some free space) and locked (``flock`` on ``.paperkit-lock``, released
by the kernel if the process dies) *before* the run, so a bad ``--out`` or a folder another run is writing
is refused at once, not after ten minutes. :meth:`ResultsFolder.write` renders every file into a staging
folder inside ``out`` first (nothing in ``out`` changes if that fails), then, with Ctrl-C held back for
the few renames, removes the old ``results.json`` (the seal), the previous set's other files, moves the
new PNGs and ``results.md`` in, and moves the new ``results.json`` in last. ``results.json`` is the
manifest: its ``files`` entry maps every other file of the set to its SHA-256, so a reader can tell a
complete set (``results.json`` present, hashes matching) from anything else.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the O_EXCL lock file below stands in
    fcntl = None  # type: ignore[assignment]

from paperkit.claims import Claim
from paperkit.runtime import distribution

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Report:
    """What a package's ``reproduce.run`` returns: numbers, claims and tables; no files, no plots.

    Attributes:
        metrics: JSON-able numbers (nested dicts/lists of floats, ints, strings; numpy values allowed).
        claims: the paper's headline claims, checked on this run.
        tables: named tables for results.md, each a list of rows with the same keys.
        notes: sentences for the reader of results.md (what the run did, what it could not do).
    """

    metrics: Mapping[str, Any]
    claims: Sequence[Claim]
    tables: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    notes: Sequence[str] = ()

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.claims)


def to_jsonable(x: Any) -> Any:
    """Convert numpy scalars/arrays, dataclasses, tuples and paths to plain JSON values."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: to_jsonable(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, Mapping):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return to_jsonable(x.tolist())
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else str(f)
    if isinstance(x, Path):
        return str(x)
    return x


def package_versions(package: str) -> dict[str, str]:
    """Versions of python, the package, paperkit and the package's installed direct requirements."""
    out = {"python": sys.version.split()[0]}
    names = [distribution(package), distribution("paperkit")]
    with contextlib.suppress(metadata.PackageNotFoundError):
        for req in metadata.requires(distribution(package)) or []:
            if "extra ==" not in req:
                names.append(re.split(r"[\s<>=!~;\[(]", req, maxsplit=1)[0])
    for name in dict.fromkeys(names):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


def git_commit(cwd: Path | None = None) -> str | None:
    """The commit of the working tree (``+dirty`` when modified), or None outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "") if head else None


def results_record(
    report: Report,
    *,
    package: str,
    scale: str,
    config: Any,
    seed: int,
    device: str,
    wall_time_s: float,
    started_at: str,
) -> dict[str, Any]:
    """The content of results.json."""
    return {
        "schema": SCHEMA_VERSION,
        "package": package,
        "scale": scale,
        "config": to_jsonable(config),
        "seed": seed,
        "device": device,
        "versions": package_versions(package),
        "git_commit": git_commit(),
        "started_at": started_at,
        "wall_time_s": round(wall_time_s, 3),
        "metrics": to_jsonable(report.metrics),
        "claims": [c.to_dict() for c in report.claims],
        "all_claims_passed": report.passed,
        "tables": to_jsonable(report.tables),
        "notes": list(report.notes),
    }


def _cell(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """A GitHub-flavoured Markdown table; columns are the union of the rows' keys, in first-seen order."""
    if not rows:
        return "_(empty)_\n"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_cell(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def results_markdown(record: Mapping[str, Any], figures: Sequence[str] = ()) -> str:
    """results.md: the run's identity, the claims table, every table, notes and links to the plots."""
    passed = sum(c["passed"] for c in record["claims"])
    out = [
        f"# {record['package']} reproduce ({record['scale']})\n",
        f"seed {record['seed']}, device {record['device']}, {record['wall_time_s']:.1f} s, "
        f"started {record['started_at']}, commit {record['git_commit'] or 'n/a'}\n",
        "versions: " + ", ".join(f"{k} {v}" for k, v in record["versions"].items()) + "\n",
        f"## Claims ({passed}/{len(record['claims'])} passed)\n",
    ]
    rows = [
        {
            "claim": c["name"],
            "paper": c["paper"] or "-",
            "measured": c["quantity"],
            "observed": c["observed"],
            "check": c["comparison"],
            "verdict": "PASS" if c["passed"] else "FAIL",
        }
        for c in record["claims"]
    ]
    out.append(markdown_table(rows))
    for name, table in record["tables"].items():
        out += [f"## {name}\n", markdown_table(table)]
    if record["notes"]:
        out += ["## Notes\n", "\n".join(f"- {n}" for n in record["notes"]) + "\n"]
    if figures:
        out += ["## Plots\n", "\n".join(f"![{Path(f).stem}]({f})" for f in figures) + "\n"]
    return "\n".join(out)


def atomic_write_bytes(path: Path, content: bytes | Callable[[BinaryIO], object]) -> None:
    """Write ``content`` (bytes, or a function writing to a binary file) through a temporary sibling and
    rename it into place: a crash never leaves half a file, and an earlier version survives intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, bytes):
                fh.write(content)
            else:
                content(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


LOCK_NAME = ".paperkit-lock"
STAGING_PREFIX = ".paperkit-staging-"
#: ``ResultsFolder.open`` refuses a folder on a disk with less free space than this: a run's PNGs and
#: tables take well under a megabyte, and a run that cannot be written is a run lost.
MIN_FREE_BYTES = 16 * 2**20
_FIGURE_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_MD_PNG_LINK = re.compile(r"\]\(([A-Za-z0-9_.-]+\.png)\)")


class OutputFolderError(OSError):
    """An output folder cannot be used: it is a file, cannot be created or written, its disk is full, or
    another run is writing it. The message is one sentence naming the folder."""


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C back for the block (a few renames) and raise it after, so the set is never half moved.
    Outside the main thread signals cannot be handled there anyway, so nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform or file system lets a folder be fsynced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _previous_set(out: Path) -> list[str]:
    """The files of the set now in ``out``: results.json's manifest, or (a result written before manifests,
    or a broken one) the PNGs results.md links; always results.md and results.json themselves."""
    names: list[str] = []
    with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
        names = [str(n) for n in json.loads((out / "results.json").read_text())["files"]]
    if not names:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            names = _MD_PNG_LINK.findall((out / "results.md").read_text())
    return [n for n in dict.fromkeys([*names, "results.md"]) if _FIGURE_NAME.fullmatch(n)]


class ResultsFolder:
    """An output folder held by one run from before the run until its results are written.

    ``ResultsFolder.open(out)`` creates ``out`` if needed and refuses (:class:`OutputFolderError`, one
    sentence) a path that is a file, a folder it cannot create or write, a disk with under 16 MiB free, or a
    folder another run holds. ``write(record, figures)`` writes the run's files as one set (module
    docstring). ``close()`` (or leaving the ``with`` block) releases the lock and removes the folders
    ``open`` created if nothing was written into them.
    """

    def __init__(self, path: Path, fd: int, created: list[Path]) -> None:
        self.path = path
        self._fd: int | None = fd
        self._created = created
        self._wrote = False

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> ResultsFolder:
        if isinstance(path, str) and not path.strip():
            raise OutputFolderError("the output folder must be a path, got an empty string")
        if "\0" in os.fspath(path):
            raise OutputFolderError(f"the output folder {os.fspath(path)!r} contains a NUL character")
        out = Path(path)
        if out.exists() and not out.is_dir():
            raise OutputFolderError(f"{out} is a file, not a folder")
        created = [p for p in [out, *out.parents] if not p.exists()][::-1]
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise OutputFolderError(f"cannot create the folder {out}: {_reason(e)}") from None
        try:
            fd = cls._lock(out)
        except BaseException:
            cls._remove_if_empty(created)
            raise
        folder = cls(out, fd, created)
        try:
            folder._check_writable()
        except BaseException:
            folder.close()
            raise
        return folder

    @staticmethod
    def _lock(out: Path) -> int:
        lock = out / LOCK_NAME
        for _ in range(100):  # retried only while the previous holder unlinks the file under us
            try:
                if fcntl is None:
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                else:
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            except FileExistsError:
                raise OutputFolderError(f"another run is writing {out} (its lock {lock} exists)") from None
            except OSError as e:
                raise OutputFolderError(f"cannot write in the folder {out}: {_reason(e)}") from None
            if fcntl is None:
                break
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                holder = ""
                with contextlib.suppress(OSError, ValueError):
                    holder = lock.read_text().strip()
                raise OutputFolderError(
                    f"another run (pid {holder or '?'}) is writing {out}; wait for it or choose another --out"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(lock).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return fd

    def _check_writable(self) -> None:
        # Anything left by a run that died mid-write: we hold the lock, so no live run owns it.
        for stale in self.path.glob(STAGING_PREFIX + "*"):
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rmdir(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.path))
        except OSError as e:
            raise OutputFolderError(f"cannot write in the folder {self.path}: {_reason(e)}") from None
        free = shutil.disk_usage(self.path).free
        if free < MIN_FREE_BYTES:
            raise OutputFolderError(
                f"only {free / 2**20:.1f} MiB free on the disk of {self.path}; a run needs at least "
                f"{MIN_FREE_BYTES // 2**20} MiB"
            )

    @staticmethod
    def _remove_if_empty(created: list[Path]) -> None:
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()

    @property
    def written(self) -> bool:
        """True once a set of results has been moved into the folder."""
        return self._wrote

    def close(self) -> None:
        """Release the lock (idempotent); remove the folders ``open`` created if they stayed empty."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path / LOCK_NAME)  # before unlocking: a waiting opener then sees a new inode
        os.close(self._fd)
        self._fd = None
        if not self._wrote:
            self._remove_if_empty(self._created)

    def __enter__(self) -> ResultsFolder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def write(self, record: Mapping[str, Any], figures: Mapping[str, Figure]) -> list[Path]:
        """Write ``<name>.png`` for each figure, results.md and results.json (with the ``files`` manifest) as
        one set; return their paths. Raises OutputFolderError (the previous set intact) if the files
        cannot be written; any other error while rendering propagates, also with the previous set intact."""
        if self._fd is None:
            raise ValueError(f"the results folder {self.path} is closed")
        for name in figures:
            if not isinstance(name, str) or not _FIGURE_NAME.fullmatch(name):
                raise ValueError(f"figure name {name!r} must be letters, digits, '.', '_' or '-'")
        try:
            staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.path))
        except OSError as e:
            raise OutputFolderError(f"cannot write results to {self.path}: {_reason(e)}") from None
        try:
            names = self._stage(staging, record, figures)
            with _sigint_deferred():
                self._commit(staging, names)
        except OSError as e:
            raise OutputFolderError(
                f"cannot write results to {self.path}: {_reason(e)}; the previous results there are intact"
            ) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return [self.path / n for n in names]

    @staticmethod
    def _stage(staging: Path, record: Mapping[str, Any], figures: Mapping[str, Figure]) -> list[str]:
        hashes: dict[str, str] = {}

        def put(name: str, data: bytes) -> None:
            with open(staging / name, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            hashes[name] = hashlib.sha256(data).hexdigest()

        pngs = [f"{name}.png" for name in figures]
        for png, fig in zip(pngs, figures.values(), strict=True):
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
            put(png, buf.getvalue())
        put("results.md", results_markdown(record, pngs).encode())
        sealed = {**record, "files": dict(hashes)}
        put("results.json", (json.dumps(sealed, indent=2, allow_nan=False) + "\n").encode())
        return [*pngs, "results.md", "results.json"]

    def _commit(self, staging: Path, names: list[str]) -> None:
        out = self.path
        with contextlib.suppress(FileNotFoundError):
            os.unlink(out / "results.json")  # unsealed: no reader takes what follows for a complete set
        for old in _previous_set(out):
            if old not in names:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(out / old)
        for name in names:  # results.json is last: the seal
            os.replace(staging / name, out / name)
        self._wrote = True
        _fsync_dir(out)


def write_results(out_dir: Path, record: Mapping[str, Any], figures: Mapping[str, Figure]) -> list[Path]:
    """Write ``<name>.png`` for each figure, results.md and results.json into ``out_dir`` as one set (see
    :class:`ResultsFolder`, which this opens, locks and closes around the write). Returns the paths written.

    Raises:
        OutputFolderError: ``out_dir`` is unusable, held by another run, or the files could not be written
            (the previous results in ``out_dir`` are then intact).
        ValueError: a figure name other than letters, digits, '.', '_' or '-'.
    """
    with ResultsFolder.open(out_dir) as folder:
        return folder.write(record, figures)
