"""Synthesize verified multi-turn trajectories (the main job), then export the folded ECoT corpus.

Each task is attempted by the generator; the code runs on the domain's real toolchain; the verdict
goes back for up to --max-rounds corrections. Every turn is stored as it happens: rerunning the same
command resumes a killed run (or one stopped by its budget or a lost endpoint) without losing or
duplicating turns. With no arguments it runs every bundled suite offline with the `repair` generator
(no API key, GPU or network needed).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports its implementation lazily
    from ecot.generators.base import Generator
    from ecot.icwm.environment import WorldModelJudge
    from ecot.run.control import Budget
    from ecot.run.session import RunOptions
    from ecot.run.usage import PriceTable
    from ecot.store import TrajectoryStore

from ecot.cli.selection import generator_arguments, generator_options, read_text, runnable_tasks, task_arguments
from ecot.core.errors import EcotError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suites", nargs="*", help="suite folders or .jsonl files (default: every bundled suite)")
    task_arguments(parser)
    parser.add_argument("--generator", default="repair", help="generator name: repair (default), openai, hf, replay")
    generator_arguments(parser)
    parser.add_argument("--samples", type=int, default=1, help="trajectories per task (default 1)")
    parser.add_argument("--max-rounds", type=int, default=4, help="correction rounds after the first attempt (default 4)")
    parser.add_argument("--workers", type=int, help="backend workers (default: all cores; on Ray: the cluster's CPUs, per domain)")
    parser.add_argument("--ray-address", metavar="ADDR", help="run backends on Ray: 'local' (start one here), 'auto' (the running cluster), 'ray://HOST:PORT' or HOST:PORT (default: a local process pool, no Ray)")
    parser.add_argument("--max-pending", type=int, metavar="N", help="evaluations submitted and not yet returned, at most (default: 4 per worker)")
    parser.add_argument("--max-in-flight", type=int, default=64, help="trajectories advancing at once (default 64)")
    parser.add_argument("--store", type=Path, default=Path("out/ecot.db"), help="trajectory store (SQLite)")
    parser.add_argument("--out", type=Path, default=Path("out/corpus"), help="folder for the exported corpus")
    parser.add_argument("--no-export", action="store_true", help="only synthesize; export later with `ecot export`")
    parser.add_argument("--world-model", type=Path, metavar="PATH", help="observe with this ICWM (from `ecot icwm train`) instead of the real backends; every predicted Pass is verified for real")
    parser.add_argument("--audit-rate", type=float, default=0.1, metavar="R", help="with --world-model: share of world-model turns also run for real and recorded as audits (default 0.1)")
    parser.add_argument("--min-confidence", type=float, default=0.0, metavar="C", help="with --world-model: run a turn for real when the model's confidence is below C (default 0: always predict; see the selective table of `ecot icwm eval`)")
    parser.add_argument("--system-prompt", type=Path, metavar="FILE", help="system message replacing the routed domain instructions; {domain_instructions} in it stands for them")
    parser.add_argument("--chat-template", type=Path, metavar="FILE", help="Jinja chat template for the model (openai: sent as the request's chat_template, as vLLM takes it; hf: replaces the tokenizer's)")
    parser.add_argument("--prices", type=Path, metavar="FILE", help="price table (TOML, USD per million tokens per model) for the cost columns and --budget-usd")
    parser.add_argument("--budget-tokens", type=int, metavar="N", help="spend at most N tokens in the run (prompt + completion, all invocations): each request's worst case is reserved before it is sent (a hard limit with --max-tokens); rerun with a larger budget to resume")
    parser.add_argument("--budget-usd", type=float, metavar="USD", help="the same as a cost, priced with --prices")
    parser.add_argument("--progress-every", type=float, default=30.0, metavar="S", help="when stdout is not a terminal, print a progress line every S seconds (default 30; 0: only at the end)")


def check_arguments(args: argparse.Namespace) -> None:
    from ecot.cli.common import check_folder

    if args.samples < 1 or args.max_rounds < 0 or args.max_in_flight < 1:
        raise EcotError("--samples and --max-in-flight must be >= 1 and --max-rounds >= 0")
    if args.limit is not None and args.limit < 1:  # tasks[:0] would run every task, tasks[:-1] all but one
        raise EcotError(f"--limit must be >= 1, got {args.limit}")
    for flag, value in (("--audit-rate", args.audit_rate), ("--min-confidence", args.min_confidence)):
        if not 0.0 <= value <= 1.0:
            raise EcotError(f"{flag} must be in [0, 1], got {value}")
    if args.progress_every < 0:
        raise EcotError(f"--progress-every must be >= 0, got {args.progress_every}")
    if not args.no_export:
        check_folder(args.out, "--out")


def run(args: argparse.Namespace) -> int:
    from ecot.cli.common import console, terminate_as_interrupt
    from ecot.cli.synth_report import exit_status, judge_line, print_report
    from ecot.generators import make_generator
    from ecot.run.session import synthesize
    from ecot.store import TrajectoryStore

    check_arguments(args)
    tasks = runnable_tasks(args)
    system_prompt = read_text(args.system_prompt, "--system-prompt") if args.system_prompt else None
    generator = make_generator(args.generator, generator_options(args))
    budget, prices = _budget(args, generator)
    judge = _judge(args)  # a bad model fails before a store is created
    with terminate_as_interrupt():
        result = synthesize(tasks, generator, args.store, samples=args.samples, max_rounds=args.max_rounds,
                            system_prompt=system_prompt, budget=budget, judge=judge, options=run_options(args),
                            console=console)
    with TrajectoryStore(args.store) as store:
        print_report(store, result, prices)
        if judge is not None:
            console.print(judge_line(judge.model.name, result.judge or {}, args.audit_rate), markup=False)
        if not args.no_export:
            _export(store, result.run_id, args.out)
    return exit_status(result)


def run_options(args: argparse.Namespace) -> RunOptions:
    from ecot.run.session import RunOptions

    return RunOptions(max_in_flight=args.max_in_flight, workers=args.workers, ray_address=args.ray_address,
                      max_pending=args.max_pending, progress_every=args.progress_every)


def _budget(args: argparse.Namespace, generator: Generator) -> tuple[Budget, PriceTable | None]:
    """(Budget, PriceTable or None) from --budget-tokens/--budget-usd/--prices; checked before any work."""
    from ecot.run.control import Budget
    from ecot.run.usage import load_prices

    prices = load_prices(args.prices) if args.prices else None
    model = generator.provenance().get("model")
    price = prices.price(model) if prices is not None else None
    if args.budget_usd is not None and prices is not None and price is None:
        raise EcotError(f"--budget-usd: the price table {args.prices} has no price for model {model!r} and no '*' entry")
    return Budget(tokens=args.budget_tokens, usd=args.budget_usd, price=price), prices


def _judge(args: argparse.Namespace) -> WorldModelJudge | None:
    """The --world-model, loaded offline, verified by real runs and audited at --audit-rate."""
    if args.world_model is None:
        return None
    from ecot.icwm import load_model
    from ecot.icwm.environment import WorldModelJudge

    return WorldModelJudge(load_model(args.world_model), audit_rate=args.audit_rate, min_confidence=args.min_confidence)


def _export(store: TrajectoryStore, run_id: int, out: Path) -> None:
    from ecot.cli.common import console
    from ecot.export import export_run

    report = export_run(store, out, run_id=run_id)
    console.print(f"exported {report} -> {out}")
