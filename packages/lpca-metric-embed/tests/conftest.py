"""One torch thread for the session: the tensors are tiny and the build machine's 2 cores are shared."""

import torch

torch.set_num_threads(1)
