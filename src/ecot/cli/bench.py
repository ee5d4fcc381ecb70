"""Score code models on benchmark suites with the paper's metrics (pass@k, Syn@k/Func@k, VeriScope,
ArchXBench (n, t), Fix%, fast_p, Acc/Spd, Main%, Comp/IoU), judged by the real toolchains.

  ecot bench run --domain rtl --generator openai --base-url http://localhost:8000/v1 --model M --samples 10
  ecot bench run suites/verilog-eval --generator hf --model out/sft/model --samples 5 --temperature 0.8
  ecot bench run suites/verilog-eval --generator openai ... --trained-on out/sft   # a trained model behind an endpoint
  ecot bench run --mode agentic --max-rounds 4 --generator openai ...     # scored after every round
  ecot bench report --store out/bench.db --run 3 --json r3.json --plot r3.png
  ecot bench compare 3 4 --store out/bench.db --plot a_vs_b.png            # per group and per task
  ecot bench repair-split --domain rtl --out suites/repair-rtl.jsonl       # held-out repair tasks (Fix%)

A benchmark run lives in the store like a synthesis run (resumable: rerun the same command after a
crash or kill), marked as a benchmark run so `ecot export` keeps its tasks out of training corpora.
Tasks whose reference does not pass on this machine, and samples the harness could not judge, are
reported as "not run here", never as model failures. A model trained by `ecot train sft` says what it
was trained on (its folder's train_summary.json): `bench run` warns when it scores the model on those
tasks, and `bench report` prints the same finding it writes in its JSON. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecot.core.errors import EcotError

if TYPE_CHECKING:
    from ecot.core.task import Task
    from ecot.export.decontam import TrainingData
    from ecot.icwm.base import WorldModel

DEFAULT_STORE = Path("out/bench.db")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="bench_command", metavar="ACTION", required=True)
    _run_arguments(sub.add_parser("run", help="sample a generator on suites and judge every sample for real"))
    report = sub.add_parser("report", help="a benchmark run's scores: tables, JSON, PNG")
    report.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"store holding the run (default {DEFAULT_STORE})")
    report.add_argument("--run", type=int, metavar="ID", help="benchmark run (default: the latest)")
    report.add_argument("--corpus", type=Path, metavar="DIR", help="also name the run's tasks found in this exported corpus")
    report.add_argument("--trained-on", type=Path, metavar="PATH",
                        help="the model's train_summary.json (or its folder), if the run did not record it")
    report.add_argument("--errata", type=Path, action="append", default=[], metavar="FILE",
                        help="also flag the tasks of these errata files (`ecot audit --errata`; repeatable)")
    _output_arguments(report)
    compare = sub.add_parser("compare", help="two benchmark runs side by side and the difference per task")
    compare.add_argument("run_a", type=int, metavar="RUN_A")
    compare.add_argument("run_b", type=int, metavar="RUN_B")
    compare.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"store holding RUN_A (default {DEFAULT_STORE})")
    compare.add_argument("--store-b", type=Path, help="store holding RUN_B (default: --store)")
    compare.add_argument("--all-tasks", action="store_true", help="list every task that differs, not the first 20")
    _output_arguments(compare)
    split = sub.add_parser("repair-split", help="held-out repair tasks: planted bugs the toolchain catches (Fix%%)")
    _task_arguments(split)
    split.add_argument("--out", type=Path, required=True, help="JSONL suite to write (its manifest goes beside it)")
    split.add_argument("--held-out", type=float, default=0.2, metavar="SHARE", help="share of the tasks held out (default 0.2)")
    split.add_argument("--per-task", type=int, default=2, metavar="N", help="repair items per held-out task (default 2)")
    split.add_argument("--seed", type=int, default=0, help="seed of the choice of tasks and bugs (default 0)")
    split.add_argument("--workers", type=int, help="backend workers (default: all cores)")


def _task_arguments(parser: argparse.ArgumentParser) -> None:
    from ecot.cli.selection import task_arguments

    parser.add_argument("suites", nargs="*", help="suite folders or .jsonl files (default: every bundled suite)")
    task_arguments(parser)


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    parser.add_argument("--plot", type=Path, metavar="FILE.png", help="write the figure (and FILE.panels.json beside it)")


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    _task_arguments(parser)
    from ecot.cli.selection import generator_arguments

    parser.add_argument("--generator", default="openai", help="openai (default), hf, replay or repair")
    generator_arguments(parser)
    parser.add_argument("--samples", type=int, default=1, metavar="N", help="independent samples per task (default 1)")
    parser.add_argument("--mode", choices=("single", "agentic"), default="single",
                        help="single: one answer, no feedback (the benchmarks' protocol, default); agentic: the K-round loop")
    parser.add_argument("--max-rounds", type=int, default=4, help="agentic: correction rounds after the first answer (default 4)")
    parser.add_argument("--world-model", type=Path, metavar="PATH", help="judge with this ICWM instead of the toolchains (scores marked as predicted)")
    parser.add_argument("--no-reference-check", action="store_true", help="do not run each task's reference first (tasks whose reference fails here are otherwise not attempted)")
    parser.add_argument("--label", help="the model's name in reports (default: the generator's model)")
    parser.add_argument("--trained-on", type=Path, metavar="PATH",
                        help="the model's train_summary.json or `ecot train sft` folder (read by itself for a local "
                             "model folder): the run records which of its tasks the model was trained on")
    parser.add_argument("--errata", type=Path, action="append", default=[], metavar="FILE",
                        help="errata files (`ecot audit --errata`) whose tasks reports flag, besides each suite's own errata.json")
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help=f"store (SQLite; default {DEFAULT_STORE})")
    parser.add_argument("--workers", type=int, help="backend workers (default: all cores)")
    parser.add_argument("--max-in-flight", type=int, default=64, help="samples advancing at once (default 64)")
    parser.add_argument("--system-prompt", type=Path, metavar="FILE", help="system message replacing the routed instructions")
    parser.add_argument("--chat-template", type=Path, metavar="FILE", help="Jinja chat template for the model")
    parser.add_argument("--progress-every", type=float, default=30.0, metavar="S", help="progress line every S seconds when stdout is not a terminal")
    _output_arguments(parser)


def run(args: argparse.Namespace) -> int:
    actions = {"run": _run, "report": _report, "compare": _compare, "repair-split": _repair_split}
    for flag in ("json", "plot", "out"):
        path = getattr(args, flag, None)
        if path is not None and path.is_dir():
            raise EcotError(f"--{flag} {path} is a folder; give a file name")
    return int(actions[args.bench_command](args))


def _check(args: argparse.Namespace) -> None:
    if args.samples < 1 or args.max_in_flight < 1 or args.max_rounds < 0:
        raise EcotError("--samples and --max-in-flight must be >= 1 and --max-rounds >= 0")
    if args.limit is not None and args.limit < 1:
        raise EcotError(f"--limit must be >= 1, got {args.limit}")
    if args.progress_every < 0:
        raise EcotError(f"--progress-every must be >= 0, got {args.progress_every}")


def _run(args: argparse.Namespace) -> int:
    from ecot.bench import contamination
    from ecot.bench.run import BenchSettings
    from ecot.bench.session import benchmark
    from ecot.cli.common import console, terminate_as_interrupt
    from ecot.cli.selection import generator_options, read_text, runnable_tasks
    from ecot.cli.synth_report import exit_status, print_report
    from ecot.generators import make_generator
    from ecot.run.session import RunOptions
    from ecot.store import TrajectoryStore

    _check(args)
    tasks = runnable_tasks(args)
    system_prompt = read_text(args.system_prompt, "--system-prompt") if args.system_prompt else None
    generator = make_generator(args.generator, generator_options(args))
    trained = contamination.training_data(generator, args.trained_on)
    settings = BenchSettings(args.mode, args.max_rounds, args.samples, not args.no_reference_check, args.label,
                             _errata(args), trained)
    _warn_contamination(args, tasks, trained)
    world = _world_model(args.world_model)
    with terminate_as_interrupt():
        result = benchmark(tasks, generator, args.store, settings, system_prompt=system_prompt, world_model=world,
                           options=RunOptions(args.max_in_flight, args.workers, progress_every=args.progress_every),
                           console=console)
    if result.not_run_here:
        console.print(f"[yellow]{len(result.not_run_here)} tasks not run here: their reference does not pass on this "
                      "machine (`ecot bench report` lists them)[/yellow]")
    with TrajectoryStore(args.store) as store:
        print_report(store, result, None)
    _report(argparse.Namespace(store=args.store, run=result.run_id, corpus=None, trained_on=None, json=args.json,
                               plot=args.plot, errata=[]))
    return exit_status(result)


def _warn_contamination(args: argparse.Namespace, tasks: list[Task], trained: TrainingData | None) -> None:
    """Before the first request: tasks the model was trained on, and scoring the default suites."""
    from rich.markup import escape

    from ecot.bench import contamination
    from ecot.cli.common import console

    line = contamination.before_run(tasks, trained)
    if line is not None:
        console.print(f"[yellow]warning: {escape(line['text'])}[/yellow]" if line["warning"] else escape(line["text"]),
                      highlight=False)
    if not args.suites:
        console.print(f"[yellow]{escape(contamination.default_suites_warning(args.store, tasks))}[/yellow]", highlight=False)


def _world_model(path: Path | None) -> WorldModel | None:
    if path is None:
        return None
    from ecot.icwm import load_model

    return load_model(path)


def _errata(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """task id -> erratum: the errata beside the suites (errata.json), then those --errata names."""
    from ecot.audit.errata import suite_errata

    return {task_id: entry.model_dump() for task_id, entry in suite_errata(args.suites, args.errata).items()}


def _report(args: argparse.Namespace) -> int:
    from ecot.bench import contamination, plot, report
    from ecot.bench.results import latest_run, load_run
    from ecot.cli.common import console
    from ecot.export import decontam
    from ecot.store import TrajectoryStore, require_store

    trained = decontam.read_training_data(args.trained_on) if args.trained_on is not None else None
    with TrajectoryStore(require_store(args.store)) as store:
        run = load_run(store, args.run if args.run is not None else latest_run(store))
        overlap = contamination.findings(store, run, args.corpus, trained)
    data = report.build(run, overlap, _errata(argparse.Namespace(suites=[], errata=args.errata)) if args.errata else None)
    for table in report.tables(data):
        console.print(table)
    for line in report.notes(data):
        console.print(line, highlight=False)
    _write(args, data, lambda path: plot.draw(plot.report_panels(data), path, f"ecot bench: run {run.run_id} ({run.label})"))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from ecot.bench import compare, plot
    from ecot.bench.results import load_run
    from ecot.cli.common import console
    from ecot.store import TrajectoryStore, require_store

    with TrajectoryStore(require_store(args.store)) as store:
        run_a = load_run(store, args.run_a)
        if args.store_b is None:
            run_b = load_run(store, args.run_b)
    if args.store_b is not None:
        with TrajectoryStore(require_store(args.store_b)) as store_b:
            run_b = load_run(store_b, args.run_b)
    data = compare.build(run_a, run_b)
    for table in compare.tables(data, args.all_tasks):
        console.print(table)
    title = f"ecot bench: A = run {run_a.run_id} ({run_a.label}) vs B = run {run_b.run_id} ({run_b.label})"
    _write(args, data, lambda path: plot.draw(plot.compare_panels(data), path, title))
    return 0


def _write(args: argparse.Namespace, data: dict[str, Any], draw: Any) -> None:
    import json

    from ecot.cli.common import console

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {args.json}")
    if args.plot is not None:
        from ecot.bench.plot import twin_path

        console.print(f"wrote {draw(args.plot)} (and {twin_path(args.plot)})")


def _repair_split(args: argparse.Namespace) -> int:
    import asyncio

    from ecot.bench.repair_split import SplitSettings, build, write
    from ecot.cli.common import console
    from ecot.cli.selection import runnable_tasks
    from ecot.executors.local import make_executor

    if not 0.0 < args.held_out <= 1.0 or args.per_task < 1:
        raise EcotError("--held-out must be in (0, 1] and --per-task >= 1")
    if args.limit is not None and args.limit < 1:
        raise EcotError(f"--limit must be >= 1, got {args.limit}")
    tasks = runnable_tasks(args)
    settings = SplitSettings(args.held_out, args.per_task, args.seed)
    with make_executor(None, args.workers) as pool:
        split = asyncio.run(build(pool, tasks, settings))
    if not split.tasks:
        raise EcotError(f"no repair task came out of {len(tasks)} tasks (held out: {len(split.held_out)}); raise --held-out")
    manifest = write(split, args.out)
    console.print(f"{len(split.tasks)} repair tasks from {len(split.held_out)} held-out tasks -> {args.out} "
                  f"(manifest {manifest}; {len(split.dropped)} bugs or tasks left out, named there)")
    return 0
