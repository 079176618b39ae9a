"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from asb.reproduce.config import Config, Margins
from asb.reproduce.plots import plots
from asb.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
