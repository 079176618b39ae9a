"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from arat.reproduce.config import Config, Margins
from arat.reproduce.plots import plots
from arat.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
