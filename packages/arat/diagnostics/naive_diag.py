"""Diagnosis of the naive cells (dev split only): loss parts, feature collapse, and gamma dependence."""
import json, sys, time
from dataclasses import replace
import torch, torch.nn.functional as F
from arat.reproduce import Config
from arat.reproduce.run import data_splits, _train_config
from arat.methods import fit
from arat.features import forward_features
from arat.models import default_layers
from arat.evaluate import EvalConfig, robust_accuracy

torch.set_num_threads(1)
cfg = Config()
xtr, ytr, xdev, ydev = data_splits(cfg, "cpu", validation=True)
base = _train_config(cfg)
for gamma in [float(g) for g in sys.argv[1].split(",")]:
    t = time.process_time()
    tr = fit("naive", xtr, ytr, channels=cfg.channels, base=base, seed=0, lr=float(sys.argv[2]), gamma=gamma)
    m = tr.model.eval()
    with torch.no_grad():
        out, feats = forward_features(m, xdev, default_layers(m))
    stats = {}
    for k, z in feats.items():
        zn = F.normalize(z, dim=1)
        cos = zn @ zn.T
        off = cos[~torch.eye(len(z), dtype=bool)]
        stats[k] = {"mean_pair_cos": float(off.mean()), "feat_std_over_batch": float(z.std(0).mean()), "feat_mean": float(z.mean())}
    r = robust_accuracy(m, xdev, ydev, EvalConfig(eps=0.3, steps=10, restarts=1, attacks=("pgd_ce",)), seed=0)
    print(json.dumps({"gamma": gamma, "lr": float(sys.argv[2]), "dev_clean": r["clean"], "dev_pgd": r["pgd_ce"],
                      "loss_first_last": [float(tr.loss[0]), float(tr.loss[-1])], "features": stats,
                      "cpu": time.process_time() - t}), flush=True)
