"""``moral-rewards`` console script: ``moral-rewards reproduce [--quick] [--seed N] [--out DIR]``."""

from __future__ import annotations

from paperkit import Experiment

EXPERIMENT = Experiment.lazy(
    "moral-rewards",
    "PPO with intrinsic moral rewards for a tiny LM agent in the iterated prisoner's dilemma "
    "(Tennant, Hailes, Musolesi; ICLR 2025).",
    "moral_rewards.reproduce",
    devices=("cpu", "cuda"),
)

main = EXPERIMENT.main
