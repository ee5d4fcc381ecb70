"""Serve a model over an OpenAI-compatible HTTP API (POST /v1/chat/completions, GET /v1/models, GET /health).

--mode hf serves a local transformers model (the embedded SmolLM2-135M-Instruct unless --model names
another); --mode replay answers from a replay JSONL file (see docs/generators.md). The first line on
stdout is the base URL for OpenAI clients (http://HOST:PORT/v1), printed once the server accepts
connections; with --port 0 the system picks a free port. Each request is one line on stderr (method,
path, status, model, tokens, seconds); --quiet leaves them out.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from typing import Any

from ecot.core.errors import EcotError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("hf", "replay"), required=True, help="what answers the requests")
    parser.add_argument("--replay", metavar="FILE", help="replay JSONL file (--mode replay)")
    parser.add_argument("--model-name", default=None, help="model id reported by /v1/models and in responses")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind; 0 picks a free one (default: 8000)")
    parser.add_argument("--quiet", action="store_true", help="do not print a line per request on stderr")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="fixed delay added to every completion, for benchmarks")
    hf = parser.add_argument_group("hf mode")
    hf.add_argument("--model", default=None, help="a .gguf file, a model folder or a cached hub name (default: embedded SmolLM2)")
    hf.add_argument("--max-new-tokens", type=int, default=None, help="answer length when a request sets no max_tokens")
    hf.add_argument("--device", default=None, help="cpu, cuda, cuda:1 ... (default: cuda if available)")
    hf.add_argument("--dtype", default=None, choices=("auto", "float32", "bfloat16", "float16"), help="weight dtype")
    hf.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: half the cores, at most 4)")


def _hf_options(args: argparse.Namespace) -> dict[str, Any]:
    names = ("model", "max_new_tokens", "device", "dtype", "threads")
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def _log_requests() -> None:
    """The server's access lines on stderr, whatever level the rest of ecot logs at."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ecot serve: %(message)s"))
    access = logging.getLogger("ecot.serve.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False


def _stop_on_sigterm(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from ecot.serve.server import HFResponder, create_server, make_responder

    if args.latency_ms < 0:
        raise EcotError(f"--latency-ms must be >= 0, got {args.latency_ms}")
    if args.host not in LOOPBACK:
        print(f"ecot serve: warning: listening on {args.host}, reachable beyond this machine", file=sys.stderr)
    responder = make_responder(args.mode, args.replay, _hf_options(args), args.model_name)
    if isinstance(responder, HFResponder):
        info = responder.generator.load()  # load before announcing the URL: the first request is not slow
        print(f"ecot serve: loaded {responder.model_name} ({info['how']}, {info['load_s']}s, {info['device']})", file=sys.stderr)
    server = create_server(responder, args.host, args.port, args.latency_ms)
    if not args.quiet:
        _log_requests()
    print(server.url, flush=True)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
