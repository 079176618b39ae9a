"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from map_palette.reproduce.config import Config, Margins
from map_palette.reproduce.plots import plots
from map_palette.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
