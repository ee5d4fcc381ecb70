"""Fold finished trajectories of a store into ECoT training samples.

Each trajectory whose final turn passed real execution becomes one chat sample: a user turn (the
router's instructions and the task) and an assistant turn `<think>trace</think>` + the final code.
Writes train.jsonl and train.parquet (the same rows, ready for TRL / LLaMA-Factory / `datasets`)
and raw.jsonl (every finished trajectory with all its turns). Files are replaced atomically.

With --fold-with NAME a registered generator (e.g. openai) rewrites each deterministic trace into
natural prose; a failed or unfaithful rewrite falls back to the deterministic trace and is counted.
"""

from __future__ import annotations

import argparse
from pathlib import Path

FORMAT_NAMES = ("jsonl", "parquet", "raw")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, required=True, help="trajectory store (SQLite file)")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--run", type=int, default=None, metavar="ID", help="export one run only (see `ecot stats`)")
    parser.add_argument("--domain", default=None, help="export one domain only (rtl, gpu, cad, firmware, asm, python)")
    parser.add_argument(
        "--format", default=",".join(FORMAT_NAMES), help="comma-separated subset of jsonl,parquet,raw (default: all)"
    )
    parser.add_argument("--fold-with", default=None, metavar="NAME", help="generator that rewrites traces into prose")
    parser.add_argument("--fold-model", default=None, metavar="MODEL", help="model name for --fold-with")
    parser.add_argument("--fold-base-url", default=None, metavar="URL", help="endpoint base URL for --fold-with")
    parser.add_argument(
        "--fold-opt", action="append", default=[], metavar="KEY=VALUE", help="other --fold-with generator option (repeatable)"
    )
    parser.add_argument("--fold-concurrency", type=int, default=8, metavar="N", help="rewrite requests in flight (default 8)")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ecot.cli.common import check_folder
    from ecot.errors import EcotError
    from ecot.store import require_store

    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    unknown = sorted(set(formats) - set(FORMAT_NAMES))
    if unknown or not formats:
        raise EcotError(f"--format takes a subset of {','.join(FORMAT_NAMES)}, got '{args.format}'")
    require_store(args.store)
    if args.fold_concurrency < 1:  # a semaphore of 0 waits forever
        raise EcotError(f"--fold-concurrency must be >= 1, got {args.fold_concurrency}")
    check_folder(args.out, "--out")
    if args.domain is not None:  # a typo would replace the corpus with empty files
        from ecot.backends import BACKENDS

        if args.domain not in BACKENDS.names():
            raise EcotError(f"--domain {args.domain!r} is not a domain (known: {', '.join(BACKENDS.names())})")
    report = asyncio.run(_export(args, formats))
    print(f"trajectories: {report.trajectories}")
    print(f"exported: {report.exported}")
    print(f"skipped (not passed): {report.skipped_not_passed}")
    print(f"skipped (pass not verified by real execution): {report.skipped_unverified}")
    if args.fold_with:
        print(f"rewritten by {args.fold_with}: {report.rewritten}, fallbacks to the deterministic trace: {report.fallbacks}")
    for path in report.files:
        print(f"wrote {path}")
    return 0


def fold_options(args: argparse.Namespace) -> dict[str, str]:
    from ecot.cli.common import key_values

    options = key_values(args.fold_opt, "--fold-opt")
    if args.fold_model:
        options["model"] = args.fold_model
    if args.fold_base_url:
        options["base_url"] = args.fold_base_url
    return options


async def _export(args: argparse.Namespace, formats: list[str]):  # type: ignore[no-untyped-def]
    from rich.progress import Progress

    from ecot.export import TraceRewriter, export_store, make_generator
    from ecot.store import TrajectoryStore, check_run

    rewriter = None
    if args.fold_with:
        generator = make_generator(args.fold_with, fold_options(args))
        rewriter = TraceRewriter(generator, concurrency=args.fold_concurrency)
    store = TrajectoryStore(args.store)
    try:
        check_run(store, args.run)  # an unknown run would replace the corpus with empty files
        total = None if args.domain else store.counts(args.run)["finished"]
        with Progress(transient=True) as progress:
            bar = progress.add_task("folding", total=total)
            return await export_store(
                store, args.out, formats, run_id=args.run, domain=args.domain, rewriter=rewriter,
                progress=lambda n: progress.advance(bar, n),
            )
    finally:
        store.close()
        if rewriter is not None:
            await rewriter.generator.aclose()
