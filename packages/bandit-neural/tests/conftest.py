"""One torch thread for the whole test session: every tensor here is tiny, and on the shared 2-core
machine a two-thread OpenMP team that cannot get both cores makes each op tens of milliseconds (the
library's bandit rounds run single-threaded for the same reason, see bandit_neural._threads)."""

import torch

torch.set_num_threads(1)
