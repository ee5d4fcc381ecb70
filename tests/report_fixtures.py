"""A small store for the report tests, built through the store API: passes after a fix (with execution
traces), a failure, an unfinished trajectory, a world-model run with a disagreeing audit, and a
trajectory whose every text field is hostile markup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ecot.core.outcome import Outcome
from ecot.core.trajectory import Message, Trajectory, Turn
from ecot.icwm.fidelity import FidelityReport, write_json
from ecot.icwm.metrics import TurnRecord, per_domain
from ecot.store import TrajectoryStore
from export_fixtures import trajectory

XSS = "<script>alert(1)</script>"
IMG = '<img src=x onerror="document.title=\'pwned\'">'
HOSTILE_TASK = f"rtl/{XSS}"
HOSTILE_CODE = f"module evil(output y); // {XSS}\n  assign y = 1'b0; /* </pre>{IMG} */\nendmodule\n"
HOSTILE_DIAGNOSTIC = f"error: {IMG} near </script><script>window.__pwned = 1</script>"
RTL_PROMPT: list[Message] = [
    {"role": "system", "content": "You write synthesizable Verilog."},
    {"role": "user", "content": f"Write module evil. {XSS}"},
]


def rtl_turn(index: int, label: str, code: str | None, diagnostic: str, source: str = "real", **metrics: Any) -> Turn:
    log = f"compile log\n{diagnostic}\nerror: line 2: expected ';'\n"
    outcome = Outcome(label, diagnostic, log if label != "Pass" else "", dict(metrics), {"iverilog": "11.0"}, 0.02)
    return Turn(index, f"I think about {XSS}.", code, f"```verilog\n{code}```", outcome, source, {"prompt_tokens": 100, "completion_tokens": 40})


def hostile_trajectory() -> Trajectory:
    turns = [
        rtl_turn(0, "Syntax_Error", HOSTILE_CODE, HOSTILE_DIAGNOSTIC, **{f"key{XSS}": XSS}),
        rtl_turn(1, "Pass", HOSTILE_CODE.replace("1'b0", "1'b1"), "simulation passed: Mismatches: 0"),
    ]
    return Trajectory(HOSTILE_TASK, "rtl", 0, RTL_PROMPT, turns, {"generator": "replay", "model": f"m{XSS}"})


def failed_trajectory() -> Trajectory:
    turns = [rtl_turn(i, "Syntax_Error", f"module m{i}(;\nendmodule\n", f"syntax error at line {i + 1}") for i in range(3)]
    return Trajectory("rtl/counter", "rtl", 0, RTL_PROMPT, turns, {"generator": "replay"})


def world_trajectory() -> Trajectory:
    turns = [
        rtl_turn(0, "Simulation_Mismatch", "module w; endmodule\n", "mismatch at 10ns", source="icwm:fast"),
        rtl_turn(1, "Pass", "module w(input a); endmodule\n", "predicted pass", source="icwm:fast"),
    ]
    return Trajectory("rtl/world", "rtl", 0, RTL_PROMPT, turns, {"generator": "replay", "environment": "icwm:fast"})


def add(store: TrajectoryStore, run: int, original: Trajectory, status: str | None, sample: int = 0) -> Trajectory:
    traj = store.trajectory(run, original.task_id, original.domain, sample, original.prompt_messages, original.provenance)
    for t in original.turns:
        store.append_turn(traj, t)
    if status:
        store.finish(traj, status)
    return traj


def build_store(path: Path, python_samples: int = 3) -> dict[str, int]:
    """The store; returns the ids of the trajectories tests look at."""
    ids: dict[str, int] = {}
    with TrajectoryStore(path) as store:
        run = store.begin_run({"generator": {"generator": "replay", "model": f"m{XSS}", "path": "x.jsonl"}, "samples": 3,
                               "max_rounds": 4, "environment": "real", "tasks": ["python/lower_bound", "rtl/counter"]})
        for sample in range(python_samples):
            ids[f"python{sample}"] = add(store, run, trajectory("python/lower_bound", f"sample {sample}"), "passed", sample).id or 0
        ids["first_try"] = add(store, run, trajectory("python/first_try", fail_first=False), "passed").id or 0
        ids["failed"] = add(store, run, failed_trajectory(), "failed").id or 0
        ids["hostile"] = add(store, run, hostile_trajectory(), "passed").id or 0
        ids["unfinished"] = add(store, run, Trajectory("rtl/pending", "rtl", 0, RTL_PROMPT, failed_trajectory().turns[:1], {}), None).id or 0
        world_run = store.begin_run({"generator": {"generator": "replay"}, "environment": "icwm:fast", "audit_rate": 1.0})
        world = add(store, world_run, world_trajectory(), "passed")
        ids["world"] = world.id or 0
        store.record_audit(world, 0, Outcome("Syntax_Error", "real: syntax error near 'endmodule'"), "icwm:fast")
    return ids


def write_fidelity(folder: Path) -> Path:
    """A fidelity.json written by ecot.icwm.fidelity from turn records: 3 of 4 rtl labels right."""
    real = [Outcome("Pass", "ok"), Outcome("Syntax_Error", "bad"), Outcome("Pass", "ok"), Outcome("Simulation_Mismatch", "x")]
    predicted = [Outcome("Pass", "ok"), Outcome("Syntax_Error", "bad"), Outcome("Pass", "ok"), Outcome("Pass", "ok")]
    records = [TurnRecord("rtl", f"rtl/t{i}", f"k{i}", r, p) for i, (r, p) in enumerate(zip(real, predicted))]
    report = FidelityReport(model=f"fast {XSS}", turns=per_domain(records))
    return write_json(report, folder / "fidelity.json")


def write_bench(folder: Path) -> Path:
    """A bench.json of the shape `ecot bench report` is expected to write (the page reads any JSON)."""
    data = {
        "model": f"smol{XSS}", "samples": 5,
        "domains": {"rtl": {"pass@1": 0.4, "pass@5": 0.8, "syn@1": 0.9}, "python": {"pass@1": 0.5, "pass@5": 0.7, "syn@1": None}},
        "tasks": [{"task": "rtl/a", "passed": 2, "n": 5}, {"task": "python/b", "passed": 5, "n": 5}],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
