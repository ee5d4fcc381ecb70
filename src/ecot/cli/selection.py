"""What `ecot synth` and `ecot bench` both take: which tasks, and the generator's options with their
shorthands, spelled alike in both (and parsed without importing either command)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ecot.core.errors import EcotError

if TYPE_CHECKING:
    from ecot.core.task import Task


def task_arguments(parser: argparse.ArgumentParser) -> None:
    """Which tasks: `ecot synth` and `ecot bench` take the same."""
    parser.add_argument("--domain", action="append", default=[], help="only these domains (repeatable)")
    parser.add_argument("--task", "--task-id", dest="task", action="append", default=[], metavar="ID",
                        help="only this task, e.g. python/fizzbuzz (repeatable; --task-id as `ecot check` and `ecot audit` spell it)")
    parser.add_argument("--limit", type=int, help="at most this many tasks per domain")


def generator_arguments(parser: argparse.ArgumentParser) -> None:
    """The generator's options and the sampling shorthands: `ecot synth` and `ecot bench` spell them alike."""
    parser.add_argument("--gen-opt", action="append", default=[], metavar="KEY=VALUE", help="generator option (repeatable)")
    parser.add_argument("--model", help="shorthand for --gen-opt model=...")
    parser.add_argument("--base-url", help="shorthand for --gen-opt base_url=... (OpenAI-compatible endpoint)")
    parser.add_argument("--max-tokens", type=int, metavar="N", help="answer length limit in tokens (the openai generator's max_tokens, the hf generator's max_new_tokens; --gen-opt spells them so too)")
    parser.add_argument("--temperature", type=float, help="sampling temperature")
    parser.add_argument("--top-p", type=float, help="nucleus sampling")
    parser.add_argument("--seed", type=int, help="sampling seed of sample 0 (sample i uses seed + i)")


def generator_options(args: argparse.Namespace) -> dict[str, str]:
    """--gen-opt pairs, then the shorthands (a shorthand wins over the pair it stands for)."""
    from ecot.cli.common import key_values

    options = key_values(args.gen_opt, "--gen-opt")
    limit = "max_new_tokens" if args.generator == "hf" else "max_tokens"
    shorthands = {"model": args.model, "base_url": args.base_url, limit: args.max_tokens,
                  "temperature": args.temperature, "top_p": args.top_p, "seed": args.seed}
    options.update({key: str(value) for key, value in shorthands.items() if value is not None})
    if args.chat_template is not None:
        options["chat_template"] = read_text(args.chat_template, "--chat-template")
    return options


def read_text(path: Path, flag: str) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise EcotError(f"{flag} {path}: cannot read ({getattr(err, 'strerror', None) or err})") from None
    if not text.strip():
        raise EcotError(f"{flag} {path} is empty")
    return text


def runnable_tasks(args: argparse.Namespace) -> list[Task]:
    """The selected tasks whose toolchains are installed; a domain with a missing tool is skipped loudly."""
    from ecot.cli.common import console, load_tasks
    from ecot.core.errors import ToolMissingError
    from ecot.domains import BACKENDS

    tasks = load_tasks(args.suites, args.domain, args.task)
    usable: list[Task] = []
    for domain in sorted({t.domain for t in tasks}):
        try:
            BACKENDS.get(domain)().check_tools()
        except ToolMissingError as err:
            console.print(f"[yellow]skipping domain {domain}: {err}[/yellow]")
            continue
        chosen = [t for t in tasks if t.domain == domain]
        usable += chosen[: args.limit] if args.limit else chosen
    if not usable:
        raise EcotError("no task can run: every selected domain lacks its toolchain (see messages above)")
    return usable
