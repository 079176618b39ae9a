"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from plnl.reproduce.config import Config, Margins
from plnl.reproduce.plots import plots
from plnl.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
