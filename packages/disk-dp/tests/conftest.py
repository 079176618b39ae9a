"""One torch thread for the whole test session: the tensors here are tiny, and on the shared 2-core
machine an OpenMP team that cannot get both cores makes each op much slower."""

import torch

torch.set_num_threads(1)
