"""Helpers shared by subcommands: resolving suites and tasks, printing outcomes."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.core.errors import EcotError, closest, did_you_mean
from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.tasks.suite import TASK_FILE, bundled_domains, bundled_suite_path, load_suite

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def __getattr__(name: str) -> Console:
    """`console` is made on first use: rich costs a one-shot `ecot check --json` tens of milliseconds."""
    if name == "console":
        return _console()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_routed: ContextVar[Console | None] = ContextVar("ecot_console", default=None)


@contextmanager
def printing_to(console: Console) -> Iterator[None]:
    """Print through `console` instead of this process's terminal (the resident checker prints for the
    terminal of the `ecot check` that called it)."""
    token = _routed.set(console)
    try:
        yield
    finally:
        _routed.reset(token)


def _console() -> Console:
    return _routed.get() or _terminal_console()


@lru_cache(maxsize=1)
def _terminal_console() -> Console:
    from rich.console import Console

    return Console()


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (a scheduler, `kill`) stops a run as Ctrl-C does: the run records what it keeps and says so."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def key_values(items: Sequence[str], flag: str) -> dict[str, str]:
    """Repeated KEY=VALUE flags (generator options) as a dict; a malformed one names the flag."""
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise EcotError(f"{flag} expects KEY=VALUE, got {item!r}")
        options[key.strip()] = value
    return options


def check_folder(path: Path, flag: str) -> None:
    """Fail before any work when an output folder is an existing file (not after hours of it)."""
    if path.exists() and not path.is_dir():
        raise EcotError(f"{flag} {path} exists and is not a folder")


def check_file(path: Path | None, flag: str) -> None:
    """Fail before any work when an output file's path is a folder."""
    if path is not None and path.is_dir():
        raise EcotError(f"{flag} {path} is a folder; give a file name")


def load_tasks(suites: Sequence[str], domains: Sequence[str] = (), ids: Sequence[str] = ()) -> list[Task]:
    """Tasks from suite paths; with none given, every bundled suite (optionally only some domains, or
    those that hold the task `ids`, such as python/fizzbuzz). `ids` keeps only those tasks, in that order."""
    if suites:
        tasks = [t for s in suites for t in load_suite(Path(s))]
    else:
        unknown = sorted(set(domains) - set(bundled_domains()))
        if unknown:
            raise EcotError(f"no bundled suite for domain {', '.join(unknown)} (bundled: {', '.join(bundled_domains())}); "
                            "give the suite's path")
        chosen = domains or _domains_of(ids) or bundled_domains()
        tasks = [t for d in chosen for t in load_suite(bundled_suite_path(d))]
    if domains:
        tasks = [t for t in tasks if t.domain in domains]
    if ids:
        tasks = _chosen(tasks, ids)
    if not tasks:
        raise EcotError(f"no task of domain {', '.join(domains)} in the given suites" if domains else "the given suites hold no task")
    _check_backends(tasks)
    return tasks


def _domains_of(ids: Sequence[str]) -> list[str]:
    """The bundled suites that hold `ids` (a bundled task's id starts with its domain); [] when one does not."""
    found = sorted({i.split("/", 1)[0] for i in ids})
    return found if set(found) <= set(bundled_domains()) else []


def _chosen(tasks: Sequence[Task], ids: Sequence[str]) -> list[Task]:
    """The tasks `--task` names; an id no suite holds is an error naming the closest one."""
    by_id = {t.id: t for t in tasks}
    for wanted in ids:
        if wanted not in by_id:
            raise EcotError(f"--task {wanted}: no such task in the chosen suites{did_you_mean(wanted, by_id)}")
    return [by_id[i] for i in dict.fromkeys(ids)]


def _check_backends(tasks: Sequence[Task]) -> None:
    """Name the tasks whose domain no backend serves, before any of them runs (a typo in task.toml)."""
    from ecot.domains import BACKENDS

    known = BACKENDS.names()
    stray: dict[str, list[str]] = {}
    for task in tasks:
        if task.domain not in known:
            stray.setdefault(task.domain, []).append(task.id)
    if stray:
        which = "; ".join(f"'{d}' in {', '.join(ids[:3])}{' ...' if len(ids) > 3 else ''}" for d, ids in sorted(stray.items()))
        raise EcotError(f"no backend serves domain {which} (known: {', '.join(known)})")


def find_task(spec: str, task_id: str | None = None) -> Task:
    """A task folder, a suite (+ task id), or the id of a bundled task such as rtl/updown_counter8."""
    path = Path(spec)
    if path.exists():
        tasks = load_suite(path)
        if task_id is None:
            if len(tasks) == 1:
                return tasks[0]
            raise EcotError(f"{spec} holds {len(tasks)} tasks: choose one with --task-id")
        wanted = task_id
    else:
        wanted = task_id or spec
        domain = wanted.split("/", 1)[0]
        if domain not in bundled_domains():
            near = closest(domain, bundled_domains())
            hint = f" (did you mean '{near}/{wanted.partition('/')[2]}'?)" if near else ""
            raise EcotError(f"{spec!r} is neither a file or folder nor a bundled task id (<domain>/<name>){hint}")
        alone = _bundled_task_alone(wanted)
        if alone is not None:
            return alone
        tasks = load_suite(bundled_suite_path(domain))
    for task in tasks:
        if task.id == wanted:
            return task
    raise EcotError(f"no task with id {wanted!r} in {spec}{did_you_mean(wanted, (t.id for t in tasks))}")


def _bundled_task_alone(wanted: str) -> Task | None:
    """The bundled task `<domain>/<name>` read from its own folder `<suite>/<name>` when that folder holds
    it, so a one-shot command does not read and validate the whole suite; None sends the caller there."""
    domain, _, name = wanted.partition("/")
    if not name or name in (".", "..") or Path(name).name != name:
        return None
    folder = bundled_suite_path(domain) / name
    if not (folder / TASK_FILE).is_file():
        return None
    task = load_suite(folder)[0]
    return task if task.id == wanted else None


def outcome_json(task: Task, outcome: Outcome) -> str:
    return json.dumps({"task_id": task.id, "domain": task.domain, **outcome.to_dict()}, indent=2)


def print_outcome(task: Task, outcome: Outcome) -> None:
    """The verdict line, then the diagnostic and metrics in a column of their own: what the candidate
    wrote (its exception message, say) never starts a line, so it cannot pass for a verdict line."""
    from rich.table import Table
    from rich.text import Text

    colour = "green" if outcome.passed else "red"
    console = _console()
    console.print(f"[bold]{task.id}[/bold]  [{colour}]{outcome.label}[/{colour}]  ({outcome.wall_s:.3f} s)")
    details = Table.grid(padding=(0, 1))
    details.add_column(no_wrap=True)
    details.add_column(overflow="fold")
    details.add_row("diagnostic:", Text(outcome.diagnostic))
    if outcome.metrics:
        details.add_row("metrics:", Text(", ".join(f"{k}={v}" for k, v in sorted(outcome.metrics.items()))))
    console.print(details, highlight=False)


def outcome_table(rows: Iterable[tuple[Task, Outcome]], title: str) -> Table:
    from rich.table import Table
    from rich.text import Text  # a diagnostic is text, never rich markup

    table = Table(title=title, show_lines=False)
    for column in ("task", "label", "diagnostic", "s"):
        table.add_column(column, overflow="fold" if column == "diagnostic" else "ellipsis")
    for task, outcome in rows:
        colour = "green" if outcome.passed else "red"
        table.add_row(task.id, f"[{colour}]{outcome.label}[/{colour}]", Text(outcome.diagnostic[:120]), f"{outcome.wall_s:.2f}")
    return table


def label_counts(outcomes: Iterable[Outcome]) -> str:
    counts = Counter(o.label for o in outcomes)
    return ", ".join(f"{label}: {n}" for label, n in counts.most_common())
