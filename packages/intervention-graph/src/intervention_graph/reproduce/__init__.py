"""The reproduction: ``Config``, ``run(config, *, seed, device) -> Report`` and ``plots(report)``."""

from intervention_graph.reproduce.config import Config, Margins
from intervention_graph.reproduce.plots import plots
from intervention_graph.reproduce.run import run

__all__ = ["Config", "Margins", "plots", "run"]
