"""Preview a CAD candidate against its task's reference: STL, STEP and a side-by-side PNG.

    python -m ecot.cli.cad_preview SUITE_TASK_DIR CANDIDATE.py OUT_DIR [--no-png]

The work is `ecot.domains.cad.render.preview`; this module only reads the task and the script.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ecot.domains.cad.render import preview
from ecot.tasks.suite import load_suite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ecot.cli.cad_preview", description=__doc__.split("\n\n")[0])
    parser.add_argument("task", type=Path, help="a CAD task folder (task.toml) or a suite file with one task")
    parser.add_argument("candidate", type=Path, help="the CadQuery script to preview")
    parser.add_argument("out", type=Path, help="folder for candidate/reference .stl, .step and preview.png")
    parser.add_argument("--no-png", action="store_true", help="only export STL and STEP")
    args = parser.parse_args(argv)
    task = load_suite(args.task)[0]
    shown = preview(task, args.candidate.read_text(encoding="utf-8"), args.out, png=not args.no_png)
    if shown.outcome is not None:
        print(f"{shown.outcome.label}: {shown.outcome.diagnostic}")
    for path in [*shown.files.values(), *([shown.png] if shown.png else [])]:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
