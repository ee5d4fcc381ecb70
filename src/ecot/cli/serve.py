"""Serve a model over an OpenAI-compatible HTTP API (POST /v1/chat/completions, GET /v1/models, GET /health).

--mode hf serves a local transformers model (the embedded SmolLM2-135M-Instruct unless --model names
another); --mode replay answers from a replay JSONL file (see docs/generators.md). The first line on
stdout is the base URL for OpenAI clients (http://HOST:PORT/v1), printed once the server accepts
connections; with --port 0 the system picks a free port.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("hf", "replay"), required=True, help="what answers the requests")
    parser.add_argument("--replay", metavar="FILE", help="replay JSONL file (--mode replay)")
    parser.add_argument("--model", default=None, help="hf mode: a .gguf file, a model folder or a cached hub name (default: embedded SmolLM2)")
    parser.add_argument("--model-name", default=None, help="model id reported by /v1/models and in responses")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind; 0 picks a free one (default: 8000)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="fixed delay added to every completion, for benchmarks")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="hf mode: default answer length when a request sets no max_tokens")
    parser.add_argument("--device", default=None, help="hf mode: cpu, cuda, cuda:1 ... (default: cuda if available)")
    parser.add_argument("--dtype", default=None, choices=("auto", "float32", "bfloat16", "float16"), help="hf mode: weight dtype")
    parser.add_argument("--threads", type=int, default=None, help="hf mode on CPU: torch threads (default: half the cores, at most 4)")


def _hf_options(args: argparse.Namespace) -> dict[str, Any]:
    pairs = {"model": args.model, "max_new_tokens": args.max_new_tokens, "device": args.device, "dtype": args.dtype, "threads": args.threads}
    return {key: value for key, value in pairs.items() if value is not None}


def _stop_on_sigterm(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    from ecot.serve import HFResponder, create_server, make_responder

    if args.host not in LOOPBACK:
        print(f"ecot serve: warning: listening on {args.host}, reachable beyond this machine", file=sys.stderr)
    responder = make_responder(args.mode, args.replay, _hf_options(args), args.model_name)
    if isinstance(responder, HFResponder):
        info = responder.generator.load()  # load before announcing the URL: the first request is not slow
        print(f"ecot serve: loaded {responder.model_name} ({info['how']}, {info['load_s']}s, {info['device']})", file=sys.stderr)
    server = create_server(responder, args.host, args.port, args.latency_ms)
    print(server.url, flush=True)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m ecot.cli.serve ...`: the same command without the rest of the CLI."""
    import logging

    from ecot.errors import EcotError

    parser = argparse.ArgumentParser(prog="ecot serve", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return run(args)
    except EcotError as err:
        print(f"ecot serve: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
