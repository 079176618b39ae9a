"""``ols-certify`` console script.

- ``ols-certify reproduce [--quick] [--seed N] [--out DIR] [--check]``: the paper's experiment
  (paperkit's frame).
- ``ols-certify audit data.csv --y Y --coef X1 [--x X1 X2 ...] [--threshold sign|se:C|significance:C|TAU]
  [--k-max K] [--no-intercept] [--plot bounds.png]``: audit one regression from a CSV file with a header.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from paperkit import Experiment, reproduce_main

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


def audit_main(argv: Sequence[str]) -> int:
    """``ols-certify audit``: print the audit summary of one regression read from a CSV file."""
    parser = _Parser(
        prog="ols-certify audit",
        description="Certify how many removed rows the OLS conclusion about one coefficient survives.",
    )
    parser.add_argument("csv", type=Path, help="comma-separated file with a header row of column names")
    parser.add_argument("--y", required=True, help="the response column")
    parser.add_argument("--coef", required=True, help="the regressor of interest")
    parser.add_argument("--x", nargs="+", default=None, help="regressors (default: every column but --y)")
    parser.add_argument(
        "--threshold", type=_threshold, default="sign", help="sign (default), se:C, significance:C or τ"
    )
    parser.add_argument("--k-max", type=int, default=None, help="largest number of removals (default n/10)")
    parser.add_argument("--no-intercept", action="store_true", help="do not add an intercept column")
    parser.add_argument("--plot", type=Path, default=None, help="write the bounds-vs-k plot to this PNG")
    args = parser.parse_args(argv)
    import numpy as np

    from ols_certify.audit import audit

    try:
        table: Any = np.genfromtxt(args.csv, delimiter=",", names=True, dtype=np.float64, encoding="utf-8")
    except OSError as e:
        parser.exit(2, f"ols-certify audit: error: cannot read {args.csv}: {e}\n")
    names = list(table.dtype.names or ())
    x_cols = args.x if args.x is not None else [c for c in names if c != args.y]
    missing = [c for c in [args.y, args.coef, *x_cols] if c not in names]
    if missing:
        parser.exit(2, f"ols-certify audit: error: column(s) {missing} not in the header {names}\n")
    X = np.column_stack([np.atleast_1d(table[c]) for c in x_cols])
    try:
        res = audit(
            X,
            np.atleast_1d(table[args.y]),
            args.coef,
            args.threshold,
            k_max=args.k_max,
            add_intercept=not args.no_intercept,
            names=x_cols,
        )
    except (ValueError, TypeError) as e:
        parser.exit(2, f"ols-certify audit: error: {e}\n")
    sys.stdout.write(res.summary() + "\n")
    if args.plot is not None:
        from paperkit import atomic_write_bytes

        fig = res.plot()
        atomic_write_bytes(args.plot, lambda fh: fig.savefig(fh, format="png", dpi=120, bbox_inches="tight"))
        sys.stdout.write(f"wrote {args.plot}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["audit"]:
        return audit_main(args[1:])
    return reproduce_main(EXPERIMENT, argv)
