"""Measure, on this machine, what ecot promises.

  ecot audit hostile [--domain D ...] [--json FILE] [--workers N]
      the shared hostile conformance suite on this machine's kernel, bubblewrap and toolchains: per domain,
      how many hostile candidates ran, how many were contained, forged Passes and leaks (zero expected).
      `ecot audit hostile --help` lists its options and exit statuses.
"""

from __future__ import annotations

import argparse
import importlib

from ecot.core.errors import EcotError

# the first word -> the module that audits it (each has add_arguments and run, like a subcommand)
AUDITS = {"hostile": "ecot.cli.audit_hostile"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.usage = "%(prog)s [-h] WHAT [ITS OPTIONS]"
    # the first word picks the audit, which parses the rest itself
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="WHAT ...", help="what to audit (" + ", ".join(AUDITS) + "), then its options")


def run(args: argparse.Namespace) -> int:
    what, rest = (args.words[0], args.words[1:]) if args.words else (None, [])
    if what not in AUDITS:
        named = f"unknown audit {what!r}" if what else "name what to audit"
        raise EcotError(f"{named}: the only audit so far is `hostile` (ecot audit hostile --help)")
    module = importlib.import_module(AUDITS[what])
    parser = argparse.ArgumentParser(prog=f"ecot audit {what}", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    return int(module.run(parser.parse_args(rest)) or 0)
