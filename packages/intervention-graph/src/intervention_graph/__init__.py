"""intervention_graph: deferred execution of intervention graphs on PyTorch models, locally and remotely.

Reproduces "NNsight and NDIF: Democratizing Access to Open-Weight Foundation Model Internals" (ICLR 2025;
arXiv 2407.14561) at small scale: a tracing context that records reads, writes and operations on any
module's inputs and outputs into a JSON-serialisable graph, a hook-based executor, and a loopback server
that runs clients' graphs (HMAC-authenticated, allow-listed ops, no pickle).
"""

from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:  # the public names, once: type checkers read them, paperkit.public_api parses them
    from intervention_graph.executor import JobTimeout, execute
    from intervention_graph.graph import Graph, GraphError, Node, Ref
    from intervention_graph.methods import METHODS, TraceDict, run_method
    from intervention_graph.models import copy_pairs, tiny_gpt2, train_copy
    from intervention_graph.ops import ALLOWED_OPS
    from intervention_graph.remote import Limits, RemoteBackend, RemoteError, serve
    from intervention_graph.serialize import Job, WireLimits, from_json, job_from_json, job_to_json, to_json
    from intervention_graph.tracer import Envoy, Proxy, Saved, Tracer, wrap

__getattr__, __dir__, __all__ = paperkit.public_api(__name__)

__version__ = paperkit.package_version("iclr25-intervention-graph")
