"""intervention_graph: deferred execution of intervention graphs on PyTorch models, locally and remotely.

Reproduces "NNsight and NDIF: Democratizing Access to Open-Weight Foundation Model Internals" (ICLR 2025;
arXiv 2407.14561) at small scale: a tracing context that records reads, writes and operations on any
module's inputs and outputs into a JSON-serialisable graph, a hook-based executor, and a loopback server
that runs clients' graphs (HMAC-authenticated, allow-listed ops, no pickle).
"""

from typing import TYPE_CHECKING

import paperkit

PUBLIC = {
    "ALLOWED_OPS": "ops",
    "Graph": "graph",
    "GraphError": "graph",
    "Node": "graph",
    "Ref": "graph",
    "execute": "executor",
    "JobTimeout": "executor",
    "Envoy": "tracer",
    "Proxy": "tracer",
    "Saved": "tracer",
    "Tracer": "tracer",
    "wrap": "tracer",
    "to_json": "serialize",
    "from_json": "serialize",
    "job_to_json": "serialize",
    "job_from_json": "serialize",
    "Job": "serialize",
    "WireLimits": "serialize",
    "serve": "remote",
    "Limits": "remote",
    "RemoteBackend": "remote",
    "RemoteError": "remote",
    "METHODS": "methods",
    "TraceDict": "methods",
    "run_method": "methods",
    "tiny_gpt2": "models",
    "copy_pairs": "models",
    "train_copy": "models",
}
__getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

if TYPE_CHECKING:
    from intervention_graph.executor import JobTimeout, execute  # noqa: F401
    from intervention_graph.graph import Graph, GraphError, Node, Ref  # noqa: F401
    from intervention_graph.methods import METHODS, TraceDict, run_method  # noqa: F401
    from intervention_graph.models import copy_pairs, tiny_gpt2, train_copy  # noqa: F401
    from intervention_graph.ops import ALLOWED_OPS  # noqa: F401
    from intervention_graph.remote import Limits, RemoteBackend, RemoteError, serve  # noqa: F401
    from intervention_graph.serialize import Job, WireLimits, from_json, job_from_json, job_to_json, to_json  # noqa: F401
    from intervention_graph.tracer import Envoy, Proxy, Saved, Tracer, wrap  # noqa: F401

__version__ = paperkit.package_version("iclr25-intervention-graph")
