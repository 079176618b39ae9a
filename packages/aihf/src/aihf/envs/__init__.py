"""Environments: the package's tabular ``aihf/FeatureGrid-v0`` and helpers for MuJoCo ``Reacher-v5``."""

from aihf.envs.feature_grid import ENV_ID, FeatureGridEnv, grid_layout, register_envs

__all__ = ["ENV_ID", "FeatureGridEnv", "grid_layout", "register_envs"]
