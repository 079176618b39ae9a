"""Results of a reproduction: the in-memory report, its JSON/Markdown renderings and atomic writing."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

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


def write_results(out_dir: Path, record: Mapping[str, Any], figures: Mapping[str, Figure]) -> list[Path]:
    """Write ``<name>.png`` for each figure, then results.md, then results.json (the last is the run's seal).

    Every file is written atomically. Returns the paths written.
    """
    out_dir = Path(out_dir)
    for name in figures:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ValueError(f"figure name {name!r} must be letters, digits, '.', '_' or '-'")
    pngs = [out_dir / f"{name}.png" for name in figures]
    for p, fig in zip(pngs, figures.values(), strict=True):
        atomic_write_bytes(p, partial(fig.savefig, format="png", dpi=120, bbox_inches="tight"))
    atomic_write_bytes(out_dir / "results.md", results_markdown(record, [p.name for p in pngs]).encode())
    atomic_write_bytes(
        out_dir / "results.json", (json.dumps(record, indent=2, allow_nan=False) + "\n").encode()
    )
    return [*pngs, out_dir / "results.md", out_dir / "results.json"]
