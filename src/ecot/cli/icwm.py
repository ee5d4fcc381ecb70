"""The Industrial Code World Model: train it on a store's real turns, measure its fidelity, retrain it.

  ecot icwm train --store out/ecot.db --out out/icwm/fast              # fast CPU model (seconds)
  ecot icwm train --store out/ecot.db --kind lm --out out/icwm/lm       # fine-tune SmolLM2 (GPU if present)
  ecot icwm eval --model out/icwm/fast --store out/ecot.db --report out/icwm/report
  ecot icwm eval --kind fast --folds 5 --store out/ecot.db              # every task held out once
  ecot icwm eval --kind fast --folds 2 --split runs --store out/ecot.db # same tasks, unseen runs
  ecot icwm eval --kind fast --folds 5 --shots 30 --store out/ecot.db   # new tasks after 30 real turns
  ecot icwm retrain --model out/icwm/fast --store out/ecot.db           # after `ecot synth --world-model`
  ecot icwm predict --model out/icwm/fast rtl/alu8 candidate.sv

Splits are by task, never by turn. Use the model with `ecot synth --world-model PATH --audit-rate R`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the examples above as written
    sub = parser.add_subparsers(dest="icwm_command", metavar="ACTION", required=True)
    train = sub.add_parser("train", help="train a world model on the store's real turns (held-out tasks kept apart)")
    _data_arguments(train)
    train.add_argument("--kind", default="fast", help="world model: fast (default) or lm")
    train.add_argument("--out", type=Path, default=Path("out/icwm/model"), help="model folder to write")
    train.add_argument("--held-out", type=float, default=0.2, help="share of each domain's tasks held out (default 0.2)")
    train.add_argument("--seed", type=int, default=0, help="seed of the task split")
    train.add_argument("--all-tasks", action="store_true", help="train on every task (no held-out numbers on the card)")
    train.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="model option, e.g. steps=2000 base=smollm2 (repeatable)")
    evaluate = sub.add_parser("eval", help="fidelity report on held-out tasks: table, JSON and PNG")
    _data_arguments(evaluate)
    evaluate.add_argument("--model", type=Path, help="saved model (judged on the tasks it never trained on)")
    evaluate.add_argument("--kind", help="with --folds: train this kind k times instead of loading a model")
    evaluate.add_argument("--folds", type=int, help="k-fold cross-validation by task (every task held out once)")
    evaluate.add_argument("--split", choices=("tasks", "runs"), default="tasks", help="with --folds: hold out tasks (default) or whole synthesis runs, whose tasks other runs teach (the amplification setting)")
    evaluate.add_argument("--shots", type=int, default=0, metavar="K", help="with --folds and the task split: the first K real turns of each held-out task are trained on, the rest judged (a new task after K real turns)")
    evaluate.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="model option for --folds")
    evaluate.add_argument("--report", type=Path, default=Path("out/icwm/report"), help="folder for fidelity.json and fidelity.png")
    evaluate.add_argument("--speed-turns", type=int, default=60, help="sampled turns per domain timed against the real backend (0: skip)")
    evaluate.add_argument("--no-trajectories", action="store_true", help="skip trajectory agreement")
    retrain = sub.add_parser("retrain", help="refit a model on the store's real turns plus audited world-model turns")
    _data_arguments(retrain)
    retrain.add_argument("--model", type=Path, required=True, help="model folder to retrain")
    retrain.add_argument("--out", type=Path, help="write the retrained model here (default: replace --model)")
    predict = sub.add_parser("predict", help="predict the outcome of one candidate file for one task")
    predict.add_argument("--model", type=Path, required=True, help="model folder")
    predict.add_argument("task", help="task folder, suite, or bundled task id such as rtl/alu8")
    predict.add_argument("candidate", type=Path, help="candidate source file")
    predict.add_argument("--task-id", help="task id inside a suite")


def _data_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, default=Path("out/ecot.db"), help="trajectory store with real turns")
    parser.add_argument("--suite", action="append", default=[], help="suite holding the store's tasks (default: bundled suites)")


def run(args: argparse.Namespace) -> int:
    actions = {"train": _train, "eval": _eval, "retrain": _retrain, "predict": _predict}
    return actions[args.icwm_command](args)


def _options(items: list[str]) -> dict[str, Any]:
    """--opt pairs, values read as JSON where they are JSON (numbers, booleans), else as text."""
    import json

    from ecot.cli.common import key_values

    options: dict[str, Any] = {}
    for key, value in key_values(items, "--opt").items():
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return options


def _dataset(args: argparse.Namespace) -> Any:
    from ecot.cli.common import console
    from ecot.icwm.dataset import label_counts, open_dataset
    from ecot.icwm.report import examples_table

    data = open_dataset(args.store, args.suite)
    skipped = ", ".join(f"{k}: {v}" for k, v in data.skipped.most_common()) or "none"
    console.print(f"{len(data.examples)} real examples from {args.store} (not used: {skipped})", markup=False)
    console.print(examples_table(label_counts(data.examples)))
    return data


def _held_out(held: dict[str, Any]) -> None:
    """The held-out numbers of a trained model: a table, and a warning when they rest on few turns."""
    from ecot.cli.common import console
    from ecot.icwm.report import held_out_table, small_sample_warning

    if not held:
        console.print("no held-out numbers: every task was trained on (--all-tasks, or too few tasks)")
        return
    console.print(held_out_table(held))
    _warn(small_sample_warning({domain: int(row.get("turns") or 0) for domain, row in held.items()}))


def _warn(warning: str | None) -> None:
    from ecot.cli.common import console

    if warning:
        console.print(warning, style="yellow", markup=False, highlight=False)


def _train(args: argparse.Namespace) -> int:
    from ecot.cli.common import console
    from ecot.icwm.base import check_replaceable
    from ecot.icwm.train import build_model, train

    check_replaceable(args.out)  # before training, not after it
    options = _options(args.opt)
    build_model(args.kind, options)  # a wrong --opt fails before the data loads
    data = _dataset(args)
    with console.status(f"training the {args.kind} world model"):
        model = train(data, args.kind, options, args.held_out, args.seed, args.all_tasks)
    path = model.save(args.out)
    console.print(f"saved {model.name} -> {path} ({model.card.examples} examples, {len(model.card.train_tasks)} tasks)", markup=False)
    _held_out(model.card.fidelity.get("held_out", {}))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from ecot.cli.common import check_folder, console
    from ecot.icwm import load_model
    from ecot.icwm.base import write_card
    from ecot.icwm.fidelity import audit_summary, cross_validate, evaluate, write_json
    from ecot.icwm.report import (
        audit_table,
        label_table,
        metric_table,
        plot,
        selective_table,
        small_sample_warning,
        summary_table,
    )
    from ecot.icwm.train import build_model

    if args.folds is None and (args.shots or args.split != "tasks"):
        raise EcotError("--shots and --split go with --folds K (cross-validation)")
    check_folder(args.report, "--report")
    if args.speed_turns < 0:
        raise EcotError(f"--speed-turns must be >= 0 (0 skips the timing), got {args.speed_turns}")
    if args.folds is not None:  # --folds 0 is an error below, not "no cross-validation"
        kind = args.kind or "fast"
        options = _options(args.opt)
        build_model(kind, options)  # a wrong --opt fails before the data loads
    data = _dataset(args)
    trajectories = not args.no_trajectories
    if args.folds is not None:
        report = cross_validate(data, lambda: build_model(kind, options), args.folds, args.store,
                                speed_turns=args.speed_turns, trajectories=trajectories, progress=console.print,
                                split=args.split, shots=args.shots)
        model = None
    elif args.model:
        model = load_model(args.model)
        held = set(data.tasks) - set(model.card.train_tasks)
        report = evaluate(model, data, held, args.store, args.speed_turns, trajectories)
    else:
        raise EcotError("give --model PATH, or --folds K (with --kind) to cross-validate")
    report.audits = audit_summary(args.store)
    for table in (summary_table(report), label_table(report), metric_table(report), selective_table(report)):
        console.print(table)
    if report.audits:
        console.print(audit_table(report.audits))
    _warn(small_sample_warning({domain: int(turns["turns"]) for domain, turns in report.turns.items()}))
    json_path = write_json(report, args.report / "fidelity.json")
    png_path = plot(report, args.report / "fidelity.png")
    console.print(f"wrote {json_path} and {png_path}")
    if model is not None:
        model.card.fidelity = {**report.to_dict(), "measured_by": "eval", "store": str(args.store)}
        write_card(args.model, model.card)
        console.print(f"fidelity numbers recorded on {args.model}/card.json")
    return 0


def _retrain(args: argparse.Namespace) -> int:
    from ecot.cli.common import console
    from ecot.icwm.base import check_replaceable
    from ecot.icwm.fidelity import audit_summary
    from ecot.icwm.train import retrain

    if args.out is not None:
        check_replaceable(args.out)  # before retraining, not after it
    data = _dataset(args)
    audits = audit_summary(args.store)
    disagreements = sum(a["audits"] - a["agree"] for a in audits.values())
    with console.status("retraining"):
        model, added = retrain(args.model, data)
    path = model.save(args.out or args.model)
    what = ", ".join(f"{k}: {v}" for k, v in added.items()) if isinstance(added, dict) else str(added)
    console.print(f"retrained -> {model.name} at {path} ({what}); audit disagreements in the store: {disagreements}", markup=False)
    _held_out(model.card.fidelity.get("held_out", {}))
    return 0


def _predict(args: argparse.Namespace) -> int:
    from ecot.cli.common import find_task, print_outcome
    from ecot.icwm import load_model

    if not args.candidate.is_file():
        raise EcotError(f"candidate file {args.candidate} does not exist or is not a file")
    model = load_model(args.model)
    task = find_task(args.task, args.task_id)
    code = args.candidate.read_text(encoding="utf-8", errors="replace")  # as `ecot check` reads it
    prediction = model.predict([(task, code)])[0]
    print_outcome(task, prediction.outcome)
    print(f"confidence: {prediction.confidence:.3f} ({model.name})")
    return 0
