"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from synthdata_ggmi.reproduce.config import Config, Margins
from synthdata_ggmi.reproduce.plots import plots
from synthdata_ggmi.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
