"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from deep_fourier.reproduce.config import Config, Margins
from deep_fourier.reproduce.plots import plots
from deep_fourier.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
