"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from video_brain_rsa.reproduce.config import Config, Margins
from video_brain_rsa.reproduce.plots import plots
from video_brain_rsa.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
