"""Measure, on this machine, what ecot promises.

  ecot audit [SUITE ...] [--domain D] [--task-id ID] [--mutants N] [--runs N] [--json FILE] [--errata FILE] [--drift]
      how strong each task's tests are: per task, whether the reference passes here, the same way on
      every run and how close to its time limit, and the mutation score (the share of the domain's own
      planted bugs that the tests reject), with the surviving mutants listed. SUITE: suite folders,
      JSONL files or bundled domain names (default: every bundled suite). `ecot audit suite --help`
      lists every option.
  ecot audit hostile [--domain D ...] [--json FILE] [--workers N]
      the shared hostile conformance suite on this machine's kernel, bubblewrap and toolchains: per domain,
      how many hostile candidates ran, how many were contained, forged Passes and leaks (zero expected).
      `ecot audit hostile --help` lists its options and exit statuses.

A suite folder named like an audit (hostile, suite) is given as a path: ./hostile.
"""

from __future__ import annotations

import argparse
import importlib

# the first word -> the module that audits it (each has add_arguments and run, like a subcommand);
# any other first word (or none) is the suite audit's
AUDITS = {"hostile": "ecot.cli.audit_hostile", "suite": "ecot.cli.audit_suite"}
DEFAULT = "suite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.usage = "%(prog)s [-h] [hostile | suite] [SUITE ...] [ITS OPTIONS]"
    # the first word picks the audit, which parses the rest itself
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="WHAT ...",
                        help="hostile, or the suites to audit (then the options: `ecot audit suite --help`)")


def late_operands(args: argparse.Namespace, extra: list[str]) -> list[str]:
    """Options before the first word (`ecot audit --mutants 5 rtl`): argparse hands them back unparsed and
    the rest, from the first word on, in `words`; together, in that order, they are the command line."""
    args.words = [*extra, *args.words]
    return []


def run(args: argparse.Namespace) -> int:
    words = list(args.words)
    what = words.pop(0) if words and words[0] in AUDITS else DEFAULT
    module = importlib.import_module(AUDITS[what])
    parser = argparse.ArgumentParser(prog=f"ecot audit {what}" if what != DEFAULT else "ecot audit", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    return int(module.run(parser.parse_args(words)) or 0)
