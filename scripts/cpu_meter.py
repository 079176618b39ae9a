"""Run a command and measure its process CPU time (children it waited for included) and wall time.

python scripts/cpu_meter.py --label NAME [--budget S --fail-over S] [--record FILE.json] -- CMD ARGS...

Exits with the command's status; when the command passed but took more than ``--fail-over`` CPU seconds,
exits 1 with one line naming the budget. ``--record`` writes {label, cpu_s, wall_s, returncode, budget}.
Only the standard library: it runs inside any package's environment.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def measure(cmd: list[str]) -> tuple[int, float, float]:
    """(exit status, CPU seconds of the process tree it waited for, wall seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime, time.perf_counter() - t0


def verdict(label: str, cpu_s: float, budget: float | None, fail_over: float | None) -> tuple[bool, str]:
    """Whether ``cpu_s`` is acceptable, and the line that says so."""
    line = f"{label}: {cpu_s:.1f} CPU-s"
    if budget is not None:
        line += f" (budget {budget:g} CPU-s a package)"
    if fail_over is not None and cpu_s > fail_over:
        return False, (
            f"error: {line}: over twice the budget; move checks over ~10 s to the `slow` marker "
            "(../shared/CONVENTIONS.md section 4)"
        )
    if budget is not None and cpu_s > budget:
        return True, f"warning: {line}: over budget"
    return True, line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--budget", type=float)
    parser.add_argument("--fail-over", type=float)
    parser.add_argument("--record", type=Path)
    parser.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("no command given after --")
    code, cpu_s, wall_s = measure(cmd)
    ok, line = verdict(args.label, cpu_s, args.budget, args.fail_over)
    print(line, file=sys.stderr if not ok else sys.stdout, flush=True)
    if args.record is not None:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        record = {"label": args.label, "cpu_s": cpu_s, "wall_s": wall_s, "returncode": code}
        args.record.write_text(json.dumps({**record, "budget": args.budget}))
    if code != 0:
        return code
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
