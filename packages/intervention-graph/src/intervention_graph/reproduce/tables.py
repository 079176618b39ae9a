"""Tables for results.md, from the records only."""

from __future__ import annotations

from typing import Any

import numpy as np

from intervention_graph.reproduce.config import Config

__all__ = ["tables"]


def tables(records: dict[str, Any], config: Config) -> dict[str, list[dict[str, Any]]]:
    """Exactness per method and task; timings; remote latencies."""
    exact = [{"method/task": k, "max_abs_diff_per_seed": ", ".join(f"{x:.1e}" for x in v)}
             for k, v in records["exact"].items()]  # fmt: skip
    if not config.timing:
        return {"exactness": exact}
    t = records["times"]
    timing = [
        {"what": name, "median_cpu_ms": float(np.median(t[key]) * 1e3), "reps": len(t[key])}
        for name, key in (("sweep ours", "sweep_ours_s"), ("sweep hooks", "sweep_hooks_s"),
                          ("plain forward", "plain_s"), ("trace, 1 save", "trace_s"),
                          ("trace, block 0 saved", "block0_s"), ("same + stop()", "block0_stop_s"))
    ]  # fmt: skip
    lat = np.asarray(records["remote"]["latencies"]) * 1e3
    remote = [{
        "clients": config.remote_clients, "jobs": len(lat), "p50_ms": float(np.percentile(lat, 50)),
        "p90_ms": float(np.percentile(lat, 90)), "max_ms": float(lat.max()),
        "jobs_per_s": records["remote"]["jobs_per_s"],
    }]  # fmt: skip
    out = {"exactness": exact, "timings": timing, "remote_load": remote}
    if records["curves"]["payload"]:
        out["payload_curve"] = records["curves"]["payload"]
    if records["curves"]["clients"]:
        out["client_curve"] = records["curves"]["clients"]
    return out
