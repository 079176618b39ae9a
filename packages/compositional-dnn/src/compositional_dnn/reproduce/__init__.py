"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from compositional_dnn.reproduce.config import Config, Margins
from compositional_dnn.reproduce.plots import plots
from compositional_dnn.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
