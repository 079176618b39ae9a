"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from moral_rewards.reproduce.config import Config, Margins
from moral_rewards.reproduce.plots import plots
from moral_rewards.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
