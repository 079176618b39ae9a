"""``paperkit-lm``: serve a local model folder over an OpenAI-compatible HTTP API.

    paperkit-lm serve --model DIR [--host 127.0.0.1] [--port 8000] [--api-key KEY] [--allow-remote]
                      [--model-name NAME] [--device cpu] [--seed 0] [--quiet]

Arguments are checked before torch is imported, so a bad command line fails in well under a second, with
one line on stderr and exit status 2. Serving stops on Ctrl-C or SIGTERM (exit 0).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import NoReturn

from paperkit.lm._net import is_loopback
from paperkit.runtime import DeviceError, resolve_device

PROG = "paperkit-lm"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be an integer in [0, 65535], got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"--port must be an integer in [0, 65535], got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be a non-negative integer, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    try:
        version = metadata.version("iclr25-paperkit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    parser = _Parser(
        prog=PROG, description="Serve a local Hugging Face causal LM over an OpenAI-compatible API."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    s = sub.add_parser(
        "serve",
        help="serve a model folder at /v1/chat/completions, /v1/completions and /v1/models",
        description="Serve a local model folder (save_model's, or any AutoModelForCausalLM folder) over an "
        "OpenAI-compatible HTTP API until interrupted.",
    )
    s.add_argument(
        "--model", required=True, metavar="DIR", help="the model folder (config.json, weights, tokenizer)"
    )
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0 picks a free one)")
    s.add_argument("--api-key", default=None, metavar="KEY", help="require 'Authorization: Bearer KEY'")
    s.add_argument("--allow-remote", action="store_true", help="allow a host that is not a loopback address")
    s.add_argument(
        "--model-name", default=None, metavar="NAME", help="the served model id (default: folder name)"
    )
    s.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or auto (default cpu)")
    s.add_argument("--seed", type=_seed, default=0, help="seed of the server's sampling stream (default 0)")
    s.add_argument("--quiet", action="store_true", help="do not log requests on stderr")
    return parser


def _fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.error(message)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        _fail(parser, "a command is required: serve")
    if not args.allow_remote and not is_loopback(args.host):
        _fail(
            parser,
            f"--host {args.host} is not a loopback address; add --allow-remote to serve beyond this machine",
        )
    if args.api_key is not None and not args.api_key:
        _fail(parser, "--api-key must not be empty")
    folder = Path(args.model)
    if not folder.is_dir():
        _fail(parser, f"--model {args.model}: no such folder")
    if not (folder / "config.json").is_file():
        _fail(parser, f"--model {args.model}: not a model folder (no config.json)")
    try:
        device = resolve_device(args.device)
    except DeviceError as err:
        _fail(parser, str(err))
    try:
        from paperkit.lm.models import load_model
        from paperkit.lm.server import serve
    except ImportError as err:
        _fail(parser, f"the lm extra is not installed ({err}); install 'iclr25-paperkit[lm]'")
    try:
        model, tokenizer = load_model(folder, device=device)
    except Exception as err:  # a broken folder: one line, not a traceback
        _fail(parser, f"--model {args.model}: cannot load it: {type(err).__name__}: {err}")
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        server = serve(
            model,
            tokenizer,
            host=args.host,
            port=args.port,
            api_key=args.api_key,
            model_name=args.model_name or folder.resolve().name,
            seed=args.seed,
            allow_remote=args.allow_remote,
            log=log,
        )
    except OSError as err:
        _fail(parser, f"cannot listen on {args.host}:{args.port}: {err}")
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    print(f"serving {folder} as {server.model_name!r} at {server.url} (Ctrl-C stops)", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
