"""`ecot` entry point. Each subcommand lives in its own module with add_arguments() and run().

The top-level parser knows every subcommand by name and help line only; the module of the chosen
subcommand is imported when the command line names it, so `ecot --help` and a one-shot `ecot check`
load no other subcommand (and no heavy dependency a subcommand imports). `ecot check` first offers
itself to a resident checker (`ecot checker start`), before argparse is even imported.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: a resident check must start fast
if TYPE_CHECKING:
    import argparse
    import sqlite3
    from collections.abc import Sequence
    from types import ModuleType

# name -> (module, one-line help). Modules import heavy dependencies inside run() only.
COMMANDS: dict[str, tuple[str, str]] = {
    "synth": ("ecot.cli.synth", "the main job: synthesize verified multi-turn trajectories and export the ECoT corpus"),
    "check": ("ecot.cli.check", "run one candidate file against one task and print the outcome"),
    "eval": ("ecot.cli.evaluate", "evaluate reference solutions (or candidates) of a suite; print the outcome table"),
    "import": ("ecot.cli.import_suite", "convert a public benchmark layout (RTLLM, VerilogEval, KernelBench, HumanEval, MBPP, Python JSONL) into an ecot suite"),
    "serve": ("ecot.cli.serve", "serve the embedded model or a replay file over an OpenAI-compatible HTTP API"),
    "export": ("ecot.cli.export", "training-ready corpus: ECoT SFT samples, preference pairs or execution traces, split, deduplicated, with a dataset card"),
    "stats": ("ecot.cli.stats", "per-domain depth statistics of a store: thinking length, turns to pass, labels per round"),
    "train": ("ecot.cli.train", "fine-tune a model on an exported corpus (sft: TRL, completion-only loss, LoRA optional)"),
    "bench": ("ecot.cli.bench", "score a model on benchmark suites with the paper's metrics (pass@k, Syn@k/Func@k, fast_p, Fix%, ...); compare runs"),
    "icwm": ("ecot.cli.icwm", "the world model: train it on real turns, report its fidelity, retrain it from audits"),
    "report": ("ecot.cli.report", "a static HTML report and trajectory browser of a store: overview, filterable table, one page per trajectory"),
    "audit": ("ecot.cli.audit", "audits run on this machine: `ecot audit hostile` runs the hostile conformance suite and counts contained cases, forged Passes and leaks"),
    "checker": ("ecot.cli.checker", "a resident checker that one-shot `ecot check` calls hand their work to (start, stop, status)"),
}


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand the command line names: its first operand (top-level options take no value)."""
    for token in argv:
        if token == "--":
            return None
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand listed; only `command` (if given) gets its real arguments."""
    import argparse
    import importlib

    from ecot import __version__

    parser = argparse.ArgumentParser(
        prog="ecot",
        description="Execution-grounded reasoning data for industrial code: real toolchains, "
        "multi-turn repair, a learned world model, ECoT folding.",
    )
    parser.add_argument("--version", action="version", version=f"ecot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        # argparse expands %-formats in help text; a literal % (as in "Fix%") must be doubled
        listed = help_text.replace("%", "%%")
        if name != command:
            sub.add_parser(name, help=listed)
            continue
        module = importlib.import_module(module_name)
        _add_command(sub.add_parser(name, help=listed, description=module.__doc__), module)
    return parser


_parsers: dict[str | None, argparse.ArgumentParser] = {}


def _parser(command: str | None) -> argparse.ArgumentParser:
    """build_parser's parser, made once per process and command (a resident checker parses many)."""
    if command not in _parsers:
        _parsers[command] = build_parser(command)
    return _parsers[command]


def _add_command(command: argparse.ArgumentParser, module: ModuleType) -> None:
    module.add_arguments(command)
    command.set_defaults(_run=module.run, _late_operands=getattr(module, "late_operands", None))


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["check"]:
        from ecot.cli import checker_link

        answered = checker_link.check_resident(arguments[1:])
        if answered is not None:
            return answered
    return run_in_process(arguments)


def run_in_process(arguments: list[str], keep_backends: bool = False) -> int:
    """Parse and run a command line in this process; keep_backends leaves the backends' warm state
    running afterwards (the resident checker reuses it for the next check)."""
    parser = _parser(chosen_command(arguments))
    args, extra = parser.parse_known_args(arguments)
    # argparse hands out every positional at its first run of them: an operand after an option
    # (`check SUITE --task-id ID FILE`) comes back unparsed; a subcommand may claim it.
    late = getattr(args, "_late_operands", None)
    if extra and late is not None:
        extra = late(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    import logging  # not needed for --help, --version or a parse error

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    return _run_command(args, keep_backends)


def _run_command(args: argparse.Namespace, keep_backends: bool = False) -> int:
    """Run the chosen subcommand; a failure the user can fix is one `ecot: error:` line, exit status 2."""
    import logging

    from ecot.core.errors import EcotError

    try:
        return int(args._run(args) or 0)
    except EcotError as err:
        print(f"ecot: error: {err}", file=sys.stderr)
        return 2
    except _database_errors() as err:
        # Only the trajectory store uses SQLite; a page damaged after it opened (or a lock held past
        # the busy timeout) surfaces here. The store checks its pages when it opens.
        from ecot.store.health import describe

        logging.getLogger("ecot").debug("store error", exc_info=True)
        print(f"ecot: error: {describe(err, getattr(args, 'store', ''))}", file=sys.stderr)
        return 2
    except OSError as err:
        # A path the user gave that cannot be read or written (a folder for a file, a file for a folder, ...).
        logging.getLogger("ecot").debug("file-system error", exc_info=True)
        where = f": {err.filename}" if err.filename else ""
        print(f"ecot: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:  # a run says what it keeps and what a rerun does (RunInterrupted)
        print(f"ecot: interrupted: {err}" if str(err) else "ecot: interrupted", file=sys.stderr)
        return 130
    finally:
        if not keep_backends:
            _close_backends()


def _close_backends() -> None:
    """Stop the warm state of the backends this command used in this process (a command that used none
    never imported ecot.domains, and does not now)."""
    domains = sys.modules.get("ecot.domains")
    if domains is not None:
        domains.close_backends()


def _database_errors() -> tuple[type[sqlite3.DatabaseError], ...]:
    """sqlite3.DatabaseError once the store has loaded sqlite3; a command that never did cannot raise it."""
    loaded = sys.modules.get("sqlite3")
    return (loaded.DatabaseError,) if loaded is not None else ()


if __name__ == "__main__":
    sys.exit(main())
