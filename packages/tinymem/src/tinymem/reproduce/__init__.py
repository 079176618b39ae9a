"""The small-scale reproduction: train a TinyMem model that memorises planted noised sequences, apply the
mitigation methods over their hyper-parameter grids, select each method's configuration with one rule, and
check the paper's claims.

- ``config``: Config (quick/full/smoke), Setting (one method at one value), Margins, QUICK_DATA.
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records.
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from tinymem.reproduce.config import QUICK_DATA, SUBNET_RATIOS, Config, Margins, Setting
from tinymem.reproduce.plots import plots
from tinymem.reproduce.run import Records, SettingRecord, run, run_cases

__all__ = [
    "QUICK_DATA",
    "SUBNET_RATIOS",
    "Config",
    "Margins",
    "Records",
    "Setting",
    "SettingRecord",
    "plots",
    "run",
    "run_cases",
]
