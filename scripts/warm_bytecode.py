"""Write the bytecode of what a package's tests import, once, when nox has built its environment.

python scripts/warm_bytecode.py MODULE

uv installs without bytecode, so the first interpreter to import torch compiles ~12 CPU-s of .pyc files
(measured on the 2-core machine, issue 17). Importing the package, its experiment and torch's compiler
front end (the first ``torch.optim`` optimiser imports ``torch._dynamo``) and the other heavy libraries it has
installed (matplotlib, scipy, scikit-learn, transformers' GPT-2 and Llama, gymnasium, brian2) here writes
those files once per environment, outside the metered test run, which then costs what it costs on any
second run. Only the
standard library; it runs inside the package's environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time


def warm(module: str, heavy: tuple[str, ...] | None = None) -> list[str]:
    """Import ``module``, ``module.reproduce`` and whichever of ``heavy`` (default ``HEAVY``) are
    installed; returns what was imported."""
    names = [module]
    if importlib.util.find_spec(module) is None:
        raise SystemExit(f"warm_bytecode: no module named {module!r} in this environment")
    if importlib.util.find_spec(f"{module}.reproduce") is not None:
        names.append(f"{module}.reproduce")
    names += [name for name in (HEAVY if heavy is None else heavy) if _installed(name)]
    for name in names:
        importlib.import_module(name)
    return names


#: The third-party modules whose first import dominates a test run's start-up (hundreds of files each);
#: only those installed in the environment are imported.
HEAVY = (
    "torch",
    "torch._dynamo",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "scipy.stats",
    "scipy.optimize",
    "sklearn.linear_model",
    "transformers.models.gpt2.modeling_gpt2",
    "transformers.models.llama.modeling_llama",
    "gymnasium",
    "brian2",
)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/warm_bytecode.py MODULE", file=sys.stderr)
        return 2
    t0 = time.process_time()
    names = warm(argv[0])
    print(f"bytecode written for {', '.join(names)} ({time.process_time() - t0:.1f} CPU-s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
