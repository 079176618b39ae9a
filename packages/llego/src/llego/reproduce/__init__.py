"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from llego.reproduce.config import Config, Margins
from llego.reproduce.plots import plots
from llego.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
