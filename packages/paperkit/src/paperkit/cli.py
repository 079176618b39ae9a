"""The ``<pkg> reproduce`` command frame every paper package's console script is built on.

A package describes its experiment once (:class:`Experiment`, usually ``Experiment.lazy`` over its
``reproduce`` module) and its ``cli.main`` is one line::

    EXPERIMENT = paperkit.Experiment.lazy("genre", "GenRe vs ...", "genre.reproduce", devices=("cpu", "cuda"))

    main = EXPERIMENT.main  # the console script named in [project.scripts]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from paperkit.results import (
    OutputFolderError,
    Report,
    ResultsFolder,
    results_markdown,
    results_record,
)
from paperkit.runtime import MAX_SEED, DeviceError, distribution, resolve_device, seed_everything

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Experiment:
    """A package's headline experiment, as the reproduce frame needs it.

    Attributes:
        package: the folder and console-script name (the distribution is ``iclr25-<package>``).
        description: one line for ``--help``.
        quick, full, smoke: build the Config of each scale. ``quick`` runs in about a minute on 2 cores,
            ``full`` in about ten, ``smoke`` in seconds (for tests; its claims are not meaningful).
        run: ``run(config, *, seed, device) -> Report``; pure apart from its progress bar.
        plots: ``plots(report) -> {name: Figure}``; each becomes ``<name>.png``.
        devices: the devices the package can use (``("cpu",)`` for numpy-only packages).
    """

    package: str
    description: str
    quick: Callable[[], Any]
    full: Callable[[], Any]
    smoke: Callable[[], Any]
    run: Callable[..., Report]
    plots: Callable[[Report], Mapping[str, Figure]] | None = None
    devices: Sequence[str] = ("cpu",)

    @classmethod
    def lazy(
        cls,
        package: str,
        description: str,
        module: str,
        *,
        devices: Sequence[str] = ("cpu",),
        plots: bool = True,
    ) -> Experiment:
        """The experiment defined in ``module`` (e.g. ``"genre.reproduce"``): a ``Config`` with ``quick()``,
        ``full()`` and ``smoke()``, ``run(config, *, seed, device) -> Report`` and, with ``plots=True``,
        ``plots(report)``. The module is imported only when a run starts, so ``--help``, ``--version`` and
        refused arguments never pay for torch."""

        def attr(name: str) -> Any:
            return getattr(importlib.import_module(module), name)

        def run(config: Any, *, seed: int, device: str) -> Report:
            report: Report = attr("run")(config, seed=seed, device=device)
            return report

        def make_plots(report: Report) -> Mapping[str, Figure]:
            figures: Mapping[str, Figure] = attr("plots")(report)
            return figures

        return cls(
            package=package,
            description=description,
            quick=lambda: attr("Config").quick(),
            full=lambda: attr("Config").full(),
            smoke=lambda: attr("Config").smoke(),
            run=run,
            plots=make_plots if plots else None,
            devices=tuple(devices),
        )

    def main(self, argv: Sequence[str] | None = None) -> int:
        """The console script: ``<package> reproduce ...`` (see :func:`reproduce_main`). A package's
        ``cli.py`` sets ``main = EXPERIMENT.main`` and names it in ``[project.scripts]``."""
        return reproduce_main(self, argv)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, no usage block: scripts and humans both read the reason at once.
        self.exit(2, f"{self.prog}: error: {message}\n")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seed must be a non-negative integer, got {text[:40]!r}"
        ) from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"--seed must be an integer in [0, 2**63 - 1], got {text[:40]}")
    return value


def _out(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("--out must be a folder path, got an empty string")
    if "\0" in text:
        raise argparse.ArgumentTypeError("--out must not contain a NUL character")
    return Path(text)


def build_parser(exp: Experiment) -> argparse.ArgumentParser:
    try:
        version = metadata.version(distribution(exp.package))
    except metadata.PackageNotFoundError:
        version = "unknown"
    parser = _Parser(prog=exp.package, description=exp.description)
    parser.add_argument("--version", action="version", version=f"{exp.package} {version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    rep = sub.add_parser(
        "reproduce",
        help="run the paper's headline experiment and check its claims",
        description=f"{exp.description} Runs the headline experiment, checks the claims, "
        "writes results.json, results.md and PNG plots.",
    )
    scale = rep.add_mutually_exclusive_group()
    scale.add_argument("--quick", action="store_true", help="the ~1 minute scale (default: full, ~10 min)")
    scale.add_argument(
        "--smoke",
        action="store_true",
        help="a seconds-long run for tests; its claims are not meaningful at that scale",
    )
    rep.add_argument("--seed", type=_seed, default=0, help="base random seed (default 0)")
    rep.add_argument(
        "--device",
        default="auto",
        choices=["auto", "cpu", "cuda"],
        help="where to compute (default auto: cuda when supported and present)",
    )
    rep.add_argument("--out", type=_out, default=None, help=f"output folder (default results/{exp.package}/)")
    rep.add_argument("--check", action="store_true", help="exit 1 when any claim fails")
    return parser


@dataclass
class _Progress:
    """How far a run got, for the line printed when it is interrupted."""

    folder: ResultsFolder | None = None


def reproduce_main(exp: Experiment, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the experiment, write results, print the claims. Returns the exit code.

    ``--out`` is checked and locked before the run (see :class:`paperkit.results.ResultsFolder`); the
    claims table is printed before the files are written, so a failed write loses no numbers.

    Exit codes: 0 done (and, with ``--check``, every claim passed); 1 a claim failed under ``--check``;
    2 bad arguments, an unavailable device or an unusable ``--out`` (a file, not writable, held by another
    run); 3 the results could not be written (the previous ones are intact), or the plots failed (the
    numbers are written without them); 130 interrupted (Ctrl-C).
    Each failure is one line on stderr.
    """
    progress = _Progress()
    try:
        return _reproduce(exp, argv, progress)
    except KeyboardInterrupt:
        folder = progress.folder
        if folder is not None and folder.written:
            what = f"the results were written in full to {folder.path}"
        elif folder is not None:
            what = f"nothing was written; {folder.path} is as it was"
        else:
            what = "nothing was written"
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"{exp.package}: interrupted; {what}\n")
        return 130


def _render_plots(exp: Experiment, report: Report) -> tuple[dict[str, Figure], str | None]:
    """The experiment's figures, or none and the reason: a bug in a plot must not lose a run's numbers."""
    if exp.plots is None:
        return {}, None
    try:
        return dict(exp.plots(report)), None
    except Exception as e:  # any rendering bug; the numbers are already computed
        return {}, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


def _reproduce(exp: Experiment, argv: Sequence[str] | None, progress: _Progress) -> int:
    parser = build_parser(exp)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("choose a command: reproduce (see --help)")
    try:
        device = resolve_device(args.device, exp.devices)
    except DeviceError as e:
        parser.exit(2, f"{exp.package}: error: {e}\n")
    out_dir = args.out if args.out is not None else Path("results") / exp.package
    try:
        folder = ResultsFolder.open(out_dir)
    except OutputFolderError as e:
        parser.exit(2, f"{exp.package}: error: --out: {e}\n")
    progress.folder = folder
    with folder:
        scale = "smoke" if args.smoke else "quick" if args.quick else "full"
        config = {"smoke": exp.smoke, "quick": exp.quick, "full": exp.full}[scale]()
        started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        t0 = time.perf_counter()
        seed_everything(args.seed)
        report = exp.run(config, seed=args.seed, device=device)
        wall = time.perf_counter() - t0
        figures, plot_error = _render_plots(exp, report)
        record = results_record(
            report,
            package=exp.package,
            scale=scale,
            config=config,
            seed=args.seed,
            device=device,
            wall_time_s=wall,
            started_at=started,
        )
        sys.stdout.write(results_markdown(record, [f"{name}.png" for name in figures]))
        try:
            written = folder.write(record, figures)
        except OutputFolderError as e:
            sys.stderr.write(f"{exp.package}: error: {e}\n")
            return 3
    sys.stdout.write(f"\nwrote {', '.join(str(p) for p in written)}\n")
    if plot_error is not None:
        sys.stderr.write(
            f"{exp.package}: error: the plots failed ({plot_error}); the numbers were written without them\n"
        )
        return 3
    if args.check and not report.passed:
        failed = ", ".join(c.name for c in report.claims if not c.passed)
        sys.stderr.write(f"{exp.package}: claims failed: {failed}\n")
        return 1
    return 0
