"""Turn the finished trajectories of a store into a training-ready corpus.

--kind sft (default): one ECoT sample per trajectory whose final turn passed real execution:
system (the domain instructions), user (the task), assistant `<think>trace</think>` + the final
code. --kind preference: DPO pairs, a failed attempt against the verified fix of the same
trajectory. --kind trace: CWM-style execution-trace samples from the Python domain's stored traces.

Writes train.jsonl / train.parquet and validation.jsonl / validation.parquet (split by task,
seeded; --validation 0 writes train only), raw.jsonl (every exported trajectory with all its
turns) and README.md (the dataset card). One trajectory per (task, sample index) is read unless
--all-runs; exact and near duplicates are dropped; with --tokenizer every row carries token counts
and --max-tokens drops (or, with --over-length keep, only reports) longer samples: nothing is ever
truncated. Files appear atomically; a crashed export's leftovers are removed by the next one.
Tasks that `ecot bench` runs of the store evaluate on (and the tasks their repair items were made
from) are left out, so no benchmark task trains the model it scores, unless --allow-overlap.

With --fold-with NAME a registered generator (e.g. openai) rewrites each deterministic trace into
natural prose; a failed or unfaithful rewrite falls back to the deterministic trace and is counted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.export.choices import FORMATS, KINDS, LAYOUTS, OVER_LENGTH

if TYPE_CHECKING:
    from ecot.export.options import ExportOptions
    from ecot.export.pipeline import ExportReport


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, required=True, help="trajectory store (SQLite file)")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--kind", choices=KINDS, default="sft", help="what each sample is (default: sft)")
    parser.add_argument("--layout", choices=LAYOUTS, default="messages",
                        help="sft/trace rows: one `messages` list, or `prompt` + `completion` for completion-only loss")
    parser.add_argument("--run", type=int, default=None, metavar="ID", help="export one run only (see `ecot stats`)")
    parser.add_argument("--all-runs", action="store_true",
                        help="read every run's trajectories (default: one per task and sample index, the newest passing)")
    parser.add_argument("--allow-overlap", action="store_true",
                        help="keep trajectories of tasks that `ecot bench` runs of this store evaluate on (default: left out)")
    parser.add_argument("--domain", default=None, help="export one domain only (rtl, gpu, cad, firmware, asm, python)")
    parser.add_argument("--format", default=",".join(FORMATS), help="comma-separated subset of jsonl,parquet,raw (default: all)")
    split = parser.add_argument_group("split, deduplication and length")
    split.add_argument("--validation", type=float, default=0.1, metavar="SHARE",
                       help="share of tasks held out for validation (default 0.1; 0: no split)")
    split.add_argument("--seed", type=int, default=0, help="seed of the task split (default 0)")
    split.add_argument("--no-dedup", action="store_true", help="keep exact and near duplicates")
    split.add_argument("--near-dup", type=float, default=0.9, metavar="SIM",
                       help="prompt and completion similarity at which a sample is a near duplicate (default 0.9; 1: exact only)")
    split.add_argument("--tokenizer", default=None, metavar="MODEL",
                       help="count tokens with this tokenizer: smollm2 (embedded), a .gguf or a local model folder")
    split.add_argument("--max-tokens", type=int, default=None, metavar="N", help="samples longer than N tokens are dropped")
    split.add_argument("--over-length", choices=OVER_LENGTH, default="drop", help="drop (default) or keep and report over-long samples")
    fold = parser.add_argument_group("rewriting traces (sft)")
    fold.add_argument("--fold-with", default=None, metavar="NAME", help="generator that rewrites traces into prose")
    fold.add_argument("--fold-model", default=None, metavar="MODEL", help="model name for --fold-with")
    fold.add_argument("--fold-base-url", default=None, metavar="URL", help="endpoint base URL for --fold-with")
    fold.add_argument("--fold-opt", action="append", default=[], metavar="KEY=VALUE",
                      help="other --fold-with generator option (repeatable)")
    fold.add_argument("--fold-concurrency", type=int, default=8, metavar="N", help="rewrite requests in flight (default 8)")


def options_from(args: argparse.Namespace) -> ExportOptions:
    from ecot.core.errors import EcotError
    from ecot.export.options import ExportOptions

    formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise EcotError(f"--format takes a subset of {','.join(FORMATS)}, got '{args.format}'")
    if args.fold_with and args.kind != "sft":
        raise EcotError("--fold-with rewrites ECoT traces: it applies to --kind sft only")
    options = ExportOptions(
        formats=formats, kind=args.kind, layout=args.layout, run_id=args.run, domain=args.domain,
        all_runs=args.all_runs, validation=args.validation, seed=args.seed, dedup=not args.no_dedup,
        near_duplicates=None if args.near_dup >= 1.0 else args.near_dup, tokenizer=args.tokenizer,
        max_tokens=args.max_tokens, over_length=args.over_length, allow_overlap=args.allow_overlap,
    )
    if args.near_dup <= 0:
        raise EcotError(f"--near-dup must be in (0, 1], got {args.near_dup}")
    options.check()
    return options


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ecot.cli.common import check_folder
    from ecot.core.errors import EcotError
    from ecot.store import require_store

    options = options_from(args)
    require_store(args.store)
    if args.fold_concurrency < 1:  # a semaphore of 0 waits forever
        raise EcotError(f"--fold-concurrency must be >= 1, got {args.fold_concurrency}")
    check_folder(args.out, "--out")
    if args.domain is not None:  # a typo would replace the corpus with empty files
        from ecot.domains import BACKENDS

        if args.domain not in BACKENDS.names():
            raise EcotError(f"--domain {args.domain!r} is not a domain (known: {', '.join(BACKENDS.names())})")
    report = asyncio.run(_export(args, options))
    print_report(report, args)
    return 0


def print_report(report: ExportReport, args: argparse.Namespace) -> None:
    print(f"trajectories: {report.trajectories}")
    print(f"exported: {report.exported} ({', '.join(f'{s}: {n}' for s, n in sorted(report.splits.items())) or 'none'})")
    if args.kind == "sft":
        print(f"skipped (not passed): {report.skipped_not_passed}")
        print(f"skipped (pass not verified by real execution): {report.skipped_unverified}")
    print(f"skipped (same task and sample in another run): {report.other_runs}")
    if report.benchmark_tasks:
        print(f"skipped (benchmark tasks: evaluated by `ecot bench` runs of this store; --allow-overlap keeps them): "
              f"{report.benchmark_tasks}")
    elif args.allow_overlap:
        print("benchmark tasks: kept (--allow-overlap)")
    print(f"duplicates dropped: {report.duplicates['exact']} exact, {report.duplicates['near']} near")
    if args.max_tokens is not None:
        verb = "dropped" if args.over_length == "drop" else "kept"
        print(f"longer than {args.max_tokens} tokens ({verb}): {len(report.over_length)}")
        for item in report.over_length[:20]:
            print(f"  {item['task_id']} sample {item['sample']} (run {item['run_id']}): {item['tokens']} tokens")
        if len(report.over_length) > 20:
            print(f"  ... and {len(report.over_length) - 20} more")
    if args.fold_with:
        print(f"rewritten by {args.fold_with}: {report.rewritten}, fallbacks to the deterministic trace: {report.fallbacks}")
    for path in report.files:
        print(f"wrote {path}")


def fold_options(args: argparse.Namespace) -> dict[str, str]:
    from ecot.cli.common import key_values

    options = key_values(args.fold_opt, "--fold-opt")
    if args.fold_model:
        options["model"] = args.fold_model
    if args.fold_base_url:
        options["base_url"] = args.fold_base_url
    return options


async def _export(args: argparse.Namespace, options: ExportOptions) -> ExportReport:
    from rich.progress import Progress

    from ecot.export import TraceRewriter, export_store
    from ecot.generators import make_generator
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
            bar = progress.add_task(f"exporting ({args.kind})", total=total)
            return await export_store(store, args.out, options, rewriter=rewriter,
                                      progress=lambda n: progress.advance(bar, n))
    finally:
        store.close()
        if rewriter is not None:
            await rewriter.generator.aclose()
