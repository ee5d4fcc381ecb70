"""`ecot report` at scale: generation time and size for a 10,000-trajectory store, incremental reruns,
and the time to filter the trajectory table in a real headless Chromium.

The store is synthesised with the replay generator through the real loop: every bundled task of the
chosen domains answers a broken first attempt, then its reference (ecot.tasks.replay), `samples`
times. Real toolchains judge each distinct (task, code) once; repeats reuse that verdict, since the
answers are deterministic (so 10,000 trajectories need a few hundred evaluations, not 20,000).
Because samples of a task then share their code, the highlight cache hits often; `--distinct` also
builds a copy whose every turn's code differs (a comment line) to measure the worst case.

Prints, each measured in this run (medians where repeated):
  full build      seconds, MB, pages per second         (targets: <= 60 s, <= 200 MB)
  rerun           no change; then after adding trajectories: files rendered and written
  filter          ms to filter 10,000 rows and draw the page (target <= 200 ms)
Usage: python bench/report_scale.py [--trajectories 10000] [--grow 100] [--domains rtl,python,asm,firmware]
       [--store PATH (reused when it exists)] [--distinct] [--builds 3] [--jobs 1,2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ecot.core.outcome import Outcome
from ecot.core.task import Task
from ecot.executors.local import make_executor
from ecot.generators.replay import ReplayGenerator, ReplayOptions
from ecot.report import ReportOptions, build_report
from ecot.report.browser import headless_chromium, unavailable
from ecot.report.pages import default_jobs
from ecot.run.identity import run_config
from ecot.run.loop import LoopSettings, RealEnvironment, SynthesisLoop
from ecot.store import TrajectoryStore
from ecot.tasks.replay import write_replay
from ecot.tasks.suite import bundled_suite_path, load_suite

TARGETS = {"seconds": 60.0, "megabytes": 200.0, "filter_ms": 200.0}
DEFAULT_JOBS = default_jobs()


class MemoEnvironment:
    """Real verdicts, each distinct (task, code) judged once: the replay answers repeat exactly."""

    source = "real"

    def __init__(self, real: RealEnvironment) -> None:
        self.real = real
        self.cache: dict[tuple[str, str], asyncio.Future[Outcome]] = {}
        self.evaluations = 0

    async def observe(self, task: Task, code: str) -> Outcome:
        key = (task.id, code)
        if key not in self.cache:
            self.cache[key] = asyncio.ensure_future(self.real.observe(task, code))
            self.evaluations += 1
        return await asyncio.shield(self.cache[key])


async def _synth(store_path: Path, tasks: list[Task], samples: int, replay: Path) -> tuple[int, int]:
    generator = ReplayGenerator(ReplayOptions(path=replay))
    config, identity = run_config(tasks, generator, samples, 4)
    with TrajectoryStore(store_path, writer=True) as store, make_executor(None, None, None) as pool:
        run_id = store.begin_run(config, identity)
        environment = MemoEnvironment(RealEnvironment(pool))
        loop = SynthesisLoop(generator, environment, store, LoopSettings(max_in_flight=256))
        summary = await loop.run(run_id, tasks, samples)
    return sum(summary.statuses.values()), environment.evaluations


def synthesise(store_path: Path, tasks: list[Task], samples: int, folder: Path) -> None:
    replay = folder / f"replay-{len(tasks)}.jsonl"
    write_replay(tasks, replay)
    start = time.perf_counter()
    done, evaluations = asyncio.run(_synth(store_path, tasks, samples, replay))
    print(f"synthesised {done} trajectories ({len(tasks)} tasks x {samples} samples) with {evaluations} real "
          f"evaluations in {time.perf_counter() - start:.1f} s -> {store_path}", flush=True)


def bundled_tasks(domains: list[str]) -> list[Task]:
    return [t for d in domains for t in load_suite(bundled_suite_path(d)) if t.reference is not None]


def trajectories_in(store_path: Path) -> int:
    with sqlite3.connect(store_path) as db:
        return int(db.execute("SELECT COUNT(*) FROM trajectories WHERE status IS NOT NULL").fetchone()[0])


def folder_megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def build(store: Path, out: Path, jobs: int) -> dict[str, Any]:
    cpu = time.process_time()
    result = build_report(ReportOptions(store=store, out=out, jobs=jobs))
    return {"seconds": result.seconds, "cpu_s": time.process_time() - cpu, "megabytes": folder_megabytes(out),
            "pages": result.trajectories, "jobs": jobs, **result.counts.as_dict()}


def median_build(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall time, with the median CPU time (counts are the same in every run)."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    return {**ordered[len(ordered) // 2], "cpu_s": statistics.median(r["cpu_s"] for r in runs), "runs": len(runs)}


def full_builds(store: Path, folder: Path, repeats: int, jobs_list: list[int]) -> dict[int, dict[str, Any]]:
    """Median full build into a fresh folder per number of rendering processes, interleaved so that
    load from other work on the machine hits every setting alike."""
    runs: dict[int, list[dict[str, Any]]] = {jobs: [] for jobs in jobs_list}
    for n in range(repeats):
        for jobs in jobs_list:
            out = folder / f"full-{jobs}-{n}"
            runs[jobs].append(build(store, out, jobs))
            shutil.rmtree(out)
    return {jobs: median_build(r) for jobs, r in runs.items()}


def reruns(store: Path, grown: Path, folder: Path, repeats: int, jobs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Median rerun on the unchanged store, and after it grew (each time on a copy of the first report)."""
    again, incremental = [], []
    for n in range(repeats):
        again.append(build(store, folder / "report-0", jobs))
        shutil.copytree(folder / "report-0", folder / f"report-grown-{n}")
        incremental.append(build(grown, folder / f"report-grown-{n}", jobs))
        shutil.rmtree(folder / f"report-grown-{n}")
    return median_build(again), median_build(incremental)


def distinct_copy(store: Path, folder: Path) -> Path:
    """A copy whose every turn's code ends with its own comment line: no two code blocks alike."""
    target = folder / "distinct.db"
    with sqlite3.connect(store) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
        copy.execute("UPDATE turns SET code = code || char(10) || '// variant ' || id WHERE code IS NOT NULL")
    return target


def filter_timings(out: Path, repeats: int) -> dict[str, float]:
    """Median ms per table action in Chromium: in-page (filter + draw) and until the next frame is painted."""
    actions = {
        "domain": "document.getElementById('f-domain').selectedIndex = 2; document.getElementById('f-domain').dispatchEvent(new Event('change'));",
        "label": "document.getElementById('f-label').selectedIndex = 1; document.getElementById('f-label').dispatchEvent(new Event('change'));",
        "search": "var s = document.getElementById('f-text'); s.value = 'mismatch'; s.dispatchEvent(new Event('input'));",
        "next page": "document.getElementById('next').click();",
        "clear": "document.getElementById('f-reset').click();",
    }
    measured: dict[str, list[float]] = {f"{name} {kind}": [] for name in actions for kind in ("in-page", "to paint")}
    with headless_chromium() as driver:
        start = time.perf_counter()
        driver.get((out / "trajectories.html").as_uri())
        driver.execute_async_script("var done = arguments[0]; requestAnimationFrame(function () { requestAnimationFrame(done); });")
        load_ms = 1000 * (time.perf_counter() - start)
        rows = driver.execute_script("return JSON.parse(document.getElementById('table-data').textContent).rows.length")
        for _ in range(repeats):
            for name, action in actions.items():
                painted = driver.execute_async_script(
                    "var done = arguments[0]; var t0 = performance.now();" + action +
                    "setTimeout(function () { requestAnimationFrame(function () { requestAnimationFrame(function () {"
                    "done([performance.now() - t0, parseFloat(document.getElementById('trajectory-table').dataset.filterMs)]);"
                    "}); }); }, 0);"
                )
                measured[f"{name} to paint"].append(painted[0])
                measured[f"{name} in-page"].append(painted[1])
            driver.execute_script("document.getElementById('f-reset').click();")
    return {"rows": rows, "load_ms": load_ms, **{k: statistics.median(v) for k, v in measured.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--grow", type=int, default=100, help="trajectories added before the incremental rerun")
    parser.add_argument("--domains", default="rtl,python,asm,firmware", help="bundled suites to draw tasks from")
    parser.add_argument("--store", type=Path, help="keep the synthesised store here (reused when it exists)")
    parser.add_argument("--distinct", action="store_true", help="also build a copy whose every code block differs")
    parser.add_argument("--builds", type=int, default=3, help="repetitions of each build (median)")
    parser.add_argument("--jobs", default=f"1,{DEFAULT_JOBS}", help="numbers of rendering processes to compare (default: 1 and ecot report's default)")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions of each browser action (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ecot-report-bench-") as tmp:
        folder = Path(tmp)
        store = args.store or folder / "ecot.db"
        tasks = bundled_tasks(args.domains.split(","))
        if not store.exists():
            synthesise(store, tasks, math.ceil(args.trajectories / len(tasks)), folder)
        print(f"store: {trajectories_in(store)} finished trajectories", flush=True)
        grown = folder / "grown.db"
        shutil.copy(store, grown)
        synthesise(grown, tasks[: args.grow], 1, folder)
        jobs_list = sorted({int(j) for j in args.jobs.split(",")})
        full = full_builds(store, folder, args.builds, jobs_list)
        chosen = full[DEFAULT_JOBS] if DEFAULT_JOBS in full else full[jobs_list[-1]]
        out = folder / "report-0"
        build(store, out, chosen["jobs"])
        again, incremental = reruns(store, grown, folder, args.builds, chosen["jobs"])
        report(full, again, incremental, args.grow)
        if args.distinct:
            distinct = distinct_copy(store, folder)
            for jobs in jobs_list:
                cost = build(distinct, folder / f"report-distinct-{jobs}", jobs)
                print(f"distinct code, {jobs} process(es): {cost['seconds']:.1f} s (CPU {cost['cpu_s']:.1f} s), "
                      f"{cost['megabytes']:.1f} MB (x{cost['seconds'] / full[jobs]['seconds']:.2f} the time of the replay store)")
        reason = unavailable()
        if reason:
            print(f"filter timing skipped: {reason}")
            return 0
        timings = filter_timings(out, args.repeats)
        print(f"\ntable in Chromium: {timings.pop('rows')} rows, loaded and drawn in {timings.pop('load_ms'):.0f} ms")
        for name, ms in timings.items():
            print(f"  {name:<20} {ms:8.2f} ms   ({ms / TARGETS['filter_ms']:.3f} of the {TARGETS['filter_ms']:.0f} ms target)")
    return 0


def report(full: dict[int, dict[str, Any]], again: dict[str, Any], incremental: dict[str, Any], grow: int) -> None:
    print(f"\nmedians of {again['runs']} builds (wall s; CPU s of this process, not of rendering workers)")
    single = full.get(1)
    for jobs, cost in full.items():
        versus = f"; x{single['seconds'] / cost['seconds']:.2f} the speed of 1 process" if single and jobs != 1 else ""
        print(f"full build, {jobs} process(es): {cost['pages']} trajectory pages in {cost['seconds']:.1f} s (CPU {cost['cpu_s']:.1f} s; "
              f"{cost['pages'] / cost['seconds']:.0f} pages/s; {cost['seconds'] / TARGETS['seconds']:.2f} of the 60 s target{versus}), "
              f"{cost['megabytes']:.1f} MB ({cost['megabytes'] / TARGETS['megabytes']:.2f} of the 200 MB target)")
    base = full[again["jobs"]]["seconds"]
    print(f"rerun ({again['jobs']} process(es)), store unchanged: {again['seconds']:.1f} s (CPU {again['cpu_s']:.1f} s; "
          f"{again['seconds'] / base:.2f} of the full build); written {again['written']}, rendered with the same bytes "
          f"{again['unchanged']}, not rendered {again['kept']}")
    print(f"rerun after adding {grow} trajectories: {incremental['seconds']:.1f} s (CPU {incremental['cpu_s']:.1f} s; "
          f"{incremental['seconds'] / base:.2f} of the full build); written {incremental['written']} "
          f"(pages of new trajectories + overview, table, figure), not rendered {incremental['kept']}")


if __name__ == "__main__":
    sys.exit(main())
