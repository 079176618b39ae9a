"""The reproduction: train the constrained barrel-column SNN on synthetic whisker sweeps, deprive whiskers,
audit the constraints, check torch against brian2 spike for spike, and compare with LSTM/GRU/CNN.

- ``config``: Config (quick/full/smoke), Margins, the torch-vs-brian2 twins (TwinCase, TWINS).
- ``run``: ``run(config, seed=..., device=...)`` -> paperkit Report; ``run_cases`` -> typed Records;
  ``make_data``, ``build_snn`` (one seed's data and model).
- ``claims``: every claim's text, source and margin. ``tables``, ``plots``: rendering from records.
"""

from barrel_snn.reproduce.config import Config, Margins, TwinCase
from barrel_snn.reproduce.plots import plots
from barrel_snn.reproduce.run import Records, build_snn, make_data, run, run_cases

__all__ = ["Config", "Margins", "Records", "TwinCase", "build_snn", "make_data", "plots", "run", "run_cases"]
