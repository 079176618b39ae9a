"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from multitp.reproduce.config import Config, Margins
from multitp.reproduce.plots import plots
from multitp.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
