"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from ntk_divergence.reproduce.config import Config, Margins
from ntk_divergence.reproduce.plots import plots
from ntk_divergence.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
