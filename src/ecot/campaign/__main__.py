"""python -m ecot.campaign prepare | run | judge (scripts/gpu_campaign.sh calls this; see docs/gpu.md).

  prepare [--dry-run]                 build build/gpu-carry/call1 and call2 (or the rehearsal's, build/gpu-carry-dry)
  run --call 1|2                      on the device: that call's steps, results into $OUT
  run --call 1 --stage-only           on the device: only stage model part 1 (a retry on a fresh machine)
  run --dry-run                       here, on the CPU: both calls' steps on the rehearsal's carry
  judge --returned DIR [--returned DIR]   here: score what came back with the real toolchains

Only the standard library is imported before a subcommand is chosen: `run` starts before the carried
wheels are installed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tarfile
from pathlib import Path

from ecot.campaign.layout import (
    CALLS,
    CARRY_ROOT,
    DRY_CARRY_ROOT,
    PROFILE,
    STEP_FILES,
    WORK_ROOT,
    Profile,
    expected_outputs,
)

REPO = Path(__file__).resolve().parents[3]
SCRATCH = Path("/tmp/ecot-campaign")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m ecot.campaign", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="action", required=True)
    prep = sub.add_parser("prepare", help="build the carry folders (here)")
    prep.add_argument("--dry-run", action="store_true", help="the rehearsal's small carry")
    prep.add_argument("--carry", type=Path, help="carry root (default build/gpu-carry, or build/gpu-carry-dry)")
    prep.add_argument("--work", type=Path, help="store, corpus and scratch of prepare (default build/gpu-campaign)")
    prep.add_argument("--kernelbench", type=Path, help="KernelBench copy (default ../shared/data/kernelbench)")
    run = sub.add_parser("run", help="the steps: one device call, or the whole rehearsal with --dry-run")
    run.add_argument("--call", type=int, choices=CALLS, help="which device call (1: gpu domain; 2: sft and world model)")
    run.add_argument("--dry-run", action="store_true", help="both calls on the CPU with the rehearsal's carry")
    run.add_argument("--stage-only", action="store_true", help="with --call 1: stage model part 1 and stop")
    run.add_argument("--carry", type=Path, help="carry root (default build/gpu-carry, or build/gpu-carry-dry)")
    run.add_argument("--out", type=Path, help="results folder (default $OUT; the rehearsal: build/gpu-campaign/dry/out)")
    run.add_argument("--scratch", type=Path, help="folder that outlives a call on a warm machine (default /tmp/ecot-campaign)")
    judge = sub.add_parser("judge", help="score what came back (here, on the CPU)")
    judge.add_argument("--returned", type=Path, action="append", required=True, help="a folder of files from $OUT (repeatable)")
    judge.add_argument("--carry", type=Path, help="the carry root the run used (default build/gpu-carry)")
    judge.add_argument("--work", type=Path, help="the prepare work folder (default build/gpu-campaign)")
    judge.add_argument("--out", type=Path, help="results (default build/gpu-campaign/judge)")
    judge.add_argument("--dry-run", action="store_true", help="judge the rehearsal's results (its defaults)")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.action == "prepare":
        return prepare(args)
    if args.action == "judge":
        return judge(args)
    return run(args)


def prepare(args: argparse.Namespace) -> int:
    from ecot.campaign.prepare import PrepareSettings
    from ecot.campaign.prepare import prepare as build

    settings = PrepareSettings.default(REPO, args.dry_run)
    for field, value in (("carry", args.carry), ("work", args.work), ("kernelbench_root", args.kernelbench)):
        if value is not None:
            settings = settings.__class__(**{**settings.__dict__, field: value.resolve()})
    build(settings)
    return 0


def run(args: argparse.Namespace) -> int:
    from ecot.campaign.runner import Context, run_parts
    from ecot.campaign.steps import call_parts, carry_folder, stage_only

    if args.dry_run == (args.call is not None):
        print("ecot campaign: error: give --call 1|2 (on the device) or --dry-run (here)", file=sys.stderr)
        return 2
    root = args.carry.resolve() if args.carry else REPO / (DRY_CARRY_ROOT if args.dry_run else CARRY_ROOT)
    out = args.out or (REPO / WORK_ROOT / "dry" / "out" if args.dry_run else Path(os.environ.get("OUT") or ""))
    if not str(out):
        print("ecot campaign: error: no $OUT: give --out DIR", file=sys.stderr)
        return 2
    scratch = args.scratch or (REPO / WORK_ROOT / "dry" / "scratch" if args.dry_run else SCRATCH)
    if args.dry_run:  # the rehearsal starts where a fresh machine starts
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    calls = list(CALLS) if args.dry_run else [args.call]
    failed = 0
    for call in calls:
        folder = carry_folder(root, call)
        profile = Profile.from_json((folder / PROFILE).read_text(encoding="utf-8"))
        context = Context(REPO, folder, Path(out).resolve(), Path(scratch).resolve(), profile, call)
        status = run_parts(context, stage_only() if args.stage_only else call_parts(call))
        failed += sum(1 for part in status["parts"] if "error" in part or part.get("timed_out") or part.get("skipped"))
    if args.dry_run:
        missing = missing_outputs(Path(out), calls)
        for name in missing:
            print(f"missing from the rehearsal's results: {name}", file=sys.stderr)
        return 1 if missing or failed else 0
    return 1 if failed else 0


def missing_outputs(out: Path, calls: list[int]) -> list[str]:
    """Every file the real run returns, and every member of each step's archive, that `out` lacks."""
    missing = [name for call in calls for name in expected_outputs(call) if not (out / name).is_file()]
    for step, members in STEP_FILES.items():
        path = out / f"{step}.tar.gz"
        if path.is_file():
            with tarfile.open(path) as archive:
                present = set(archive.getnames())
            missing += [f"{path.name}:{member}" for member in members if member not in present]
    return missing


def judge(args: argparse.Namespace) -> int:
    from ecot.campaign.judge import JudgeSettings
    from ecot.campaign.judge import judge as score

    base = REPO / WORK_ROOT / ("dry" if args.dry_run else "")
    settings = JudgeSettings(
        returned=[p.resolve() for p in args.returned],
        carry=(args.carry or REPO / (DRY_CARRY_ROOT if args.dry_run else CARRY_ROOT)).resolve(),
        work=(args.work or base).resolve(), out=(args.out or base / "judge").resolve(),
    )
    score(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
