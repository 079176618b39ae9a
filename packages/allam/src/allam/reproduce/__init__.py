"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from allam.reproduce.config import Config, Margins
from allam.reproduce.plots import plots
from allam.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
