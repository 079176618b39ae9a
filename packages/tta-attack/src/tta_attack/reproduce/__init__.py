"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from tta_attack.reproduce.config import Config, Margins
from tta_attack.reproduce.plots import plots
from tta_attack.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
