"""``ols-certify`` console script.

- ``ols-certify reproduce [--quick] [--seed N] [--out DIR] [--check]``: the paper's experiment
  (paperkit's frame).
- ``ols-certify audit data.csv --y Y --coef X1 [--x X1 X2 ...] [--delimiter ;] [--threshold
  sign|se:C|significance:C|TAU] [--k-max K] [--no-intercept] [--plot bounds.png]``: audit one regression from
  a CSV file with a header (UTF-8 with or without a byte-order mark, quoted fields allowed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "ols-certify",
    "Certify that an OLS conclusion survives the removal of any k samples (ACRE; Rubinstein & "
    "Hopkins, ICLR 2025).",
    "ols_certify.reproduce",
    devices=("cpu",),
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _threshold(text: str) -> str | float | tuple[str, float]:
    if text == "sign":
        return "sign"
    for rule in ("se", "significance"):
        if text.startswith(rule + ":"):
            try:
                return (rule, float(text.split(":", 1)[1]))
            except ValueError:
                break
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--threshold must be sign, se:C, significance:C or a number, got {text!r}"
        ) from None


def _delimiter(text: str) -> str:
    value = {"tab": "\t", "\\t": "\t"}.get(text, text)
    if len(value) != 1 or value in '"\r\n':
        raise argparse.ArgumentTypeError(
            f"--delimiter must be one character (or 'tab'), not a quote or newline, got {text!r}"
        )
    return value


def _check_plot_path(path: Path) -> None:
    """Refuse, before any work, a --plot path that cannot be written (checked by creating a file there)."""
    import tempfile

    if path.is_dir():
        raise OSError(f"--plot {path} is a folder; give a file name such as {path / 'bounds.png'}")
    parent = path.parent
    if not parent.is_dir():
        raise OSError(f"--plot {path}: the folder {parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".tmp"):
            pass
    except OSError as e:
        raise OSError(f"--plot {path}: cannot write in {parent}: {e.strerror or e}") from None


def _audit_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ols-certify audit",
        description="Certify how many removed rows the OLS conclusion about one coefficient survives.",
    )
    parser.add_argument("csv", type=Path, help="a CSV file (UTF-8, a header row of column names)")
    parser.add_argument("--y", required=True, help="the response column")
    parser.add_argument("--coef", required=True, help="the regressor of interest")
    parser.add_argument("--x", nargs="+", default=None, help="regressors (default: every column but --y)")
    parser.add_argument(
        "--delimiter", type=_delimiter, default=",", help="field separator: ',' (default), ';', 'tab', ..."
    )
    parser.add_argument(
        "--threshold", type=_threshold, default="sign", help="sign (default), se:C, significance:C or τ"
    )
    parser.add_argument("--k-max", type=int, default=None, help="largest number of removals (default n/10)")
    parser.add_argument("--no-intercept", action="store_true", help="do not add an intercept column")
    parser.add_argument("--plot", type=Path, default=None, help="write the bounds-vs-k plot to this PNG")
    return parser


def _design(args: argparse.Namespace) -> tuple[list[str], Any, Any]:
    """The regressor names, X and y read from the CSV file; CSVError/ValueError with one sentence."""
    from ols_certify.csvfile import delimiter_hint, numeric_columns, read_csv

    table = read_csv(args.csv, args.delimiter)
    names = list(table.names)
    x_cols = args.x if args.x is not None else [c for c in names if c != args.y]
    missing = [c for c in dict.fromkeys([args.y, args.coef, *x_cols]) if c not in names]
    if missing:
        raise ValueError(
            f"column(s) {missing} not in the header {names}{delimiter_hint(table, args.delimiter)}"
        )
    if args.y in x_cols:
        raise ValueError(f"--x includes the response {args.y!r}: a design that contains y fits it exactly")
    if args.coef not in x_cols:
        raise ValueError(f"--coef {args.coef!r} is not among the regressors --x {x_cols}")
    if len(set(x_cols)) != len(x_cols):
        raise ValueError(f"--x names a column more than once: {x_cols}")
    return x_cols, numeric_columns(table, x_cols), numeric_columns(table, [args.y])[:, 0]


def audit_main(argv: Sequence[str]) -> int:
    """``ols-certify audit``: print the audit summary of one regression read from a CSV file.

    Everything it cannot use (an unreadable or malformed file, a text column, a design containing y or
    fitting it exactly, an unwritable --plot) is one line on stderr and exit 2, checked before the audit
    runs where it can be."""
    parser = _audit_parser()
    args = parser.parse_args(argv)

    def fail(message: str) -> NoReturn:
        parser.exit(2, f"ols-certify audit: error: {message}\n")

    try:
        if args.plot is not None:
            _check_plot_path(args.plot)
        x_cols, X, y = _design(args)
    except (OSError, ValueError) as e:  # CSVError is a ValueError
        fail(str(e))
    from ols_certify.audit import audit

    try:
        res = audit(
            X,
            y,
            args.coef,
            args.threshold,
            k_max=args.k_max,
            add_intercept=not args.no_intercept,
            names=x_cols,
        )
    except (ValueError, TypeError) as e:
        fail(str(e))
    sys.stdout.write(res.summary() + "\n")
    if args.plot is not None:
        from paperkit import atomic_write_bytes

        fig = res.plot()
        try:
            atomic_write_bytes(
                args.plot, lambda fh: fig.savefig(fh, format="png", dpi=120, bbox_inches="tight")
            )
        except OSError as e:
            fail(f"--plot {args.plot}: cannot write it: {e.strerror or e}")
        sys.stdout.write(f"wrote {args.plot}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["audit"]:
        return audit_main(args[1:])
    return EXPERIMENT.main(argv)
