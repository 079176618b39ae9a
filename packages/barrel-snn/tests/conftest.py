"""One torch thread for the whole session: the tensors are small and the machine is shared."""

import torch

torch.set_num_threads(1)
