"""Pilot P11 (RESULTS.md section 16): the dev-world tuning cells at lr 6.4e-2 (one step above run 7's
grid), with the package's own dev_cell, so the grid's top edge is known before the judged run."""
import sys, time
from allam.reproduce import Config
from allam.reproduce.run import dev_cell

cfg = Config()
lr = float(sys.argv[1])
t = time.process_time()
for v in cfg.variants:
    print(v, lr, round(dev_cell((cfg, v, lr, "cpu")), 4), flush=True)
print("CPU", round(time.process_time() - t, 1))
