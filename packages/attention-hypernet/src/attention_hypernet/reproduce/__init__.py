"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from attention_hypernet.reproduce.config import Config, Margins
from attention_hypernet.reproduce.plots import plots
from attention_hypernet.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
