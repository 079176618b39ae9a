"""One torch thread for the whole test session: the tensors here are tiny, and on the shared 2-core
machine a two-thread OpenMP team that cannot get both cores only adds waiting."""

import torch

torch.set_num_threads(1)
