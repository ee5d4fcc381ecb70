"""`judge`: score what the device returned, here, with the real toolchains, and write the numbers.

- step 1: the GPU tests' counts and failures (JUnit XML), pass rates and fast_p (KernelBench's, p in
  0, 0.8, 1, 1.5, 2) of the bundled references, the KernelBench references and their torch.compile'd
  candidates (the backend's CUDA-event speedups), and the bench report of the compiled candidates;
- step 2: `ecot bench run --generator replay` of the base and the trained model's answers on the
  held-out suite (every sample judged here by the real backends), `ecot bench compare` of the two, and
  the training summary;
- step 3: the language-model world model's held-out predictions scored with ecot.icwm.metrics, beside
  the fast model fitted here on the same training tasks and judged on the same turns.

Writes OUT/results.json and OUT/results.md (the tables for docs/training.md, benchmarks.md, world-model.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ecot.campaign.judge_world import world_results
from ecot.campaign.layout import HELDOUT, PROFILE, STEP_FILES, Profile, archive_name
from ecot.campaign.report import markdown
from ecot.tasks.suite import load_suite, write_jsonl

SPEEDUPS = (0.0, 0.8, 1.0, 1.5, 2.0)


@dataclass(frozen=True)
class JudgeSettings:
    returned: list[Path]  # folders holding what came back from $OUT (one per call)
    carry: Path
    work: Path
    out: Path


def judge(settings: JudgeSettings, say: Any = print) -> dict[str, Any]:
    settings.out.mkdir(parents=True, exist_ok=True)
    unpacked = unpack(settings)
    profile = Profile.from_json((settings.carry / "call2" / PROFILE).read_text(encoding="utf-8"))
    results: dict[str, Any] = {"calls": statuses(settings)}
    results["gpu"] = gpu_results(unpacked / "1-gpu")
    results["sft"] = sft_results(settings, unpacked / "2-sft", profile, say)
    results["world"] = world_results(unpacked / "3-world", settings.carry / "call2", profile, settings.out)
    (settings.out / "results.json").write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    (settings.out / "results.md").write_text(markdown(results), encoding="utf-8")
    say(f"wrote {settings.out / 'results.json'} and {settings.out / 'results.md'}")
    return results


def unpack(settings: JudgeSettings) -> Path:
    """Every step archive found in the returned folders, extracted into OUT/returned/<step>/."""
    target = settings.out / "returned"
    shutil.rmtree(target, ignore_errors=True)
    for step, members in STEP_FILES.items():
        for folder in settings.returned:
            archive = folder / archive_name(step)
            if archive.is_file():
                (target / step).mkdir(parents=True, exist_ok=True)
                with tarfile.open(archive) as handle:
                    for member in handle.getmembers():  # only the plain files the step writes, by name
                        if member.isfile() and member.name in members:
                            source = handle.extractfile(member)
                            if source is not None:
                                (target / step / member.name).write_bytes(source.read())
    return target


def statuses(settings: JudgeSettings) -> dict[str, Any]:
    found = {}
    for folder in settings.returned:
        for path in sorted(folder.glob("call*.json")):
            found[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    return found


def gpu_results(folder: Path) -> dict[str, Any]:
    return {
        "tests": junit(folder / "pytest-gpu.xml"),
        "inline_cuda": junit(folder / "pytest-inline-cuda.xml"),
        "references": outcome_rates(folder / "gpu-references.jsonl"),
        "kernelbench_references": outcome_rates(folder / "kernelbench-references.jsonl"),
        "kernelbench_compiled": bench_groups(folder / "kernelbench-compiled.json"),
    }


def junit(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"ran": False}
    root = ElementTree.parse(path).getroot()
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed = []
    for suite in root.iter("testsuite"):
        for key in counts:
            counts[key] += int(suite.get(key, 0))
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(f"{case.get('classname')}::{case.get('name')}")
    passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return {"ran": True, **counts, "passed": passed, "failed_tests": failed}


def outcome_rates(path: Path) -> dict[str, Any]:
    """Pass rate, labels and fast_p of `ecot eval --json` lines (speedup: the backend's measured metric)."""
    if not path.is_file():
        return {"ran": False}
    from ecot.core.scoring import fast_p

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    labels: dict[str, int] = {}
    for row in rows:
        labels[row["label"]] = labels.get(row["label"], 0) + 1
    pairs = [(row["label"] == "Pass", row.get("metrics", {}).get("speedup")) for row in rows]
    timed = [row for row in rows if row.get("metrics", {}).get("speedup") is not None]
    return {"ran": True, "tasks": len(rows), "passed": labels.get("Pass", 0), "labels": labels,
            "timed": len(timed), "devices": sorted({str(r.get("metrics", {}).get("device", "?")) for r in rows}),
            "fast_p": {str(p): round(fast_p(pairs, p), 4) for p in SPEEDUPS} if timed else "unmeasured (no timing)",
            "speedups": {r["task_id"]: r["metrics"]["speedup"] for r in timed}}


def bench_groups(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"ran": False}
    report = json.loads(path.read_text(encoding="utf-8"))
    return {"ran": True, "run": report.get("run"), "groups": {
        g["group"]: {name: m.get("value") for name, m in g["metrics"].items()} | {"tasks": g["tasks"]}
        for g in report.get("groups", [])}}


def answered(suite: Path, answers: Path, samples: int, target: Path) -> int:
    """The held-out suite cut to the tasks whose every sample was answered (a cut run answers fewer)."""
    counts: dict[str, set[int]] = {}
    for line in answers.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            counts.setdefault(row["task_id"], set()).add(int(row["sample"]))
    tasks = [t for t in load_suite(suite) if len(counts.get(t.id, ())) >= samples]
    if tasks:
        write_jsonl(tasks, target)
    return len(tasks)


def bench_run(settings: JudgeSettings, label: str, answers: Path, samples: int, say: Any) -> dict[str, Any]:
    suite = settings.out / f"heldout-{label}.jsonl"
    count = answered(settings.carry / "call2" / HELDOUT, answers, samples, suite)
    if not count:
        return {"ran": False, "why": f"no held-out task has all {samples} answers in {answers.name}"}
    store, report = settings.out / "bench.db", settings.out / f"bench-{label}.json"
    command = [sys.executable, "-m", "ecot", "bench", "run", str(suite), "--generator", "replay", "--gen-opt",
               f"path={answers}", "--samples", str(samples), "--label", label, "--store", str(store),
               "--json", str(report), "--plot", str(settings.out / f"bench-{label}.png"), "--progress-every", "60"]
    say(f"judging the {label} model's answers on {count} held-out tasks: {' '.join(command[2:])}")
    done = subprocess.run(command, check=False)
    if not report.is_file():
        return {"ran": False, "why": f"ecot bench run exited {done.returncode} without a report"}
    data = json.loads(report.read_text(encoding="utf-8"))
    return {"ran": True, "run": data["run"], "tasks": count, "exit": done.returncode,
            "groups": bench_groups(report)["groups"]}


def sft_results(settings: JudgeSettings, folder: Path, profile: Profile, say: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    summary = folder / "train_summary.json"
    found["training"] = json.loads(summary.read_text(encoding="utf-8")) if summary.is_file() else {"ran": False}
    runs = {}
    for label in ("base", "trained"):
        meta, answers = folder / f"generation-{label}.json", folder / f"answers-{label}.jsonl"
        found[f"generation_{label}"] = json.loads(meta.read_text(encoding="utf-8")) if meta.is_file() else {"ran": False}
        if answers.is_file():
            runs[label] = found[f"bench_{label}"] = bench_run(settings, label, answers, profile.generation.samples, say)
    if all(runs.get(label, {}).get("ran") for label in ("base", "trained")):
        found["compare"] = compare(settings, runs["base"]["run"], runs["trained"]["run"])
    return found


def compare(settings: JudgeSettings, run_a: int, run_b: int) -> dict[str, Any]:
    target = settings.out / "compare.json"
    subprocess.run([sys.executable, "-m", "ecot", "bench", "compare", str(run_a), str(run_b), "--store",
                    str(settings.out / "bench.db"), "--json", str(target), "--plot", str(settings.out / "compare.png")],
                   check=False)
    if not target.is_file():
        return {"ran": False}
    data = json.loads(target.read_text(encoding="utf-8"))
    return {"ran": True, "groups": {g["group"]: {m: row["difference"] for m, row in g["metrics"].items()}
                                    for g in data["groups"]}}
