"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from sebra.reproduce.config import Config, Margins
from sebra.reproduce.plots import plots
from sebra.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
