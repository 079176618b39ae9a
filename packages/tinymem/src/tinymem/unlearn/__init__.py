"""Unlearning methods: neuron-level (score + ablate) and weight-level edits of the MLP projections."""

from tinymem.unlearn.common import check_ratio
from tinymem.unlearn.neuron import (
    ablate_neurons,
    activation_scores,
    hard_concrete_scores,
    integrated_gradients_scores,
    slimming_scores,
    zero_out_scores,
)
from tinymem.unlearn.weight import (
    EmpiricalBlockFisherInverse,
    GetSubnet,
    SupermaskProjection,
    balanced_subnet,
    balanced_subnet_loss,
    durable,
    durable_aggregate,
    get_subnet,
    greedy,
    second_order,
    subnet,
)

__all__ = [
    "EmpiricalBlockFisherInverse",
    "GetSubnet",
    "SupermaskProjection",
    "ablate_neurons",
    "activation_scores",
    "balanced_subnet",
    "balanced_subnet_loss",
    "check_ratio",
    "durable",
    "durable_aggregate",
    "get_subnet",
    "greedy",
    "hard_concrete_scores",
    "integrated_gradients_scores",
    "second_order",
    "slimming_scores",
    "subnet",
    "zero_out_scores",
]
