"""Preview a candidate against its task's reference, for a domain that draws previews (`Domain.preview`;
CAD: STL, STEP and a side-by-side PNG).

    python -m ecot.cli.preview SUITE_TASK_DIR CANDIDATE OUT_DIR [--no-png]

The work is the domain's preview hook; this module only reads the task and the candidate.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ecot.core.domain import get_domain
from ecot.tasks.suite import load_suite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ecot.cli.preview", description=__doc__.split("\n\n")[0])
    parser.add_argument("task", type=Path, help="a task folder (task.toml) or a suite file with one task")
    parser.add_argument("candidate", type=Path, help="the candidate's code")
    parser.add_argument("out", type=Path, help="folder for what the preview draws and exports")
    parser.add_argument("--no-png", action="store_true", help="only export files, draw no picture")
    args = parser.parse_args(argv)
    task = load_suite(args.task)[0]
    hook = get_domain(task.domain).load_preview()
    if hook is None:
        parser.error(f"domain '{task.domain}' draws no previews")
    shown = hook.draw(task, args.candidate.read_text(encoding="utf-8"), args.out, png=not args.no_png)
    if shown.outcome is not None:
        print(f"{shown.outcome.label}: {shown.outcome.diagnostic}")
    for path in [*shown.files.values(), *([shown.png] if shown.png else [])]:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
