"""`ecot audit hostile`: how the runner tells contained, forged, leaked, uncontained and not-run cases apart
(on small cases of its own against the real python backend), the report's exit status, and the command
(everything missing when the sandbox is off; one whole domain through the worker pool)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from ecot.audit.common import files_stay_absent, no_process_left, processes_matching, unique_marker
from ecot.audit.hostile import suite
from ecot.audit.hostile.framework import Attack, Case, label_in
from ecot.audit.hostile.report import AuditReport, CaseResult, ControlResult, DomainResult, Verdict
from ecot.audit.hostile.runner import judge
from ecot.audit.hostile.suite import Listed, listed_cases
from ecot.cli.main import main
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import TIMEOUT
from test_cli_startup import HELP_HEAVY, loaded_by

SRC = str(Path(__file__).resolve().parents[1] / "src")
TASK = "python/two_sum"
RIGHT = "def two_sum(nums, target):\n    seen = {}\n    for j, x in enumerate(nums):\n        if target - x in seen:\n" \
        "            return [seen[target - x], j]\n        seen.setdefault(x, j)\n    return []\n"
WRONG = "def two_sum(nums, target):\n    return [-1]\n"


def listed(case: Case, attack: Attack = Attack.FORGED_PRINT) -> Listed:
    return Listed("python", attack, case)


def test_a_pass_that_containment_forbids_is_forged() -> None:
    result = judge(listed(Case("right-answer", TASK, RIGHT)))
    assert (result.verdict, result.label) == (Verdict.FORGED, "Pass")
    assert result.failed and "containment requires not_pass" in result.detail


def test_a_failing_label_is_contained_and_a_wrong_one_is_uncontained() -> None:
    assert judge(listed(Case("wrong-answer", TASK, WRONG))).verdict == Verdict.CONTAINED
    result = judge(listed(Case("wrong-not-timeout", TASK, WRONG, label_in(TIMEOUT))))
    assert result.verdict == Verdict.UNCONTAINED and result.label != TIMEOUT
    assert "label in ('Timeout',)" in result.detail


def test_a_failed_host_check_is_a_leak_that_names_what_escaped(tmp_path: Path) -> None:
    outside = tmp_path / unique_marker()

    @contextlib.contextmanager
    def file_appears() -> Iterator[None]:
        with files_stay_absent([outside]):
            yield
            outside.write_text("x")  # what a candidate that wrote outside its work dir would leave

    result = judge(listed(Case("file-outside", TASK, WRONG, host=file_appears), Attack.WRITE_OUTSIDE))
    assert result.verdict == Verdict.LEAK and result.failed and result.label == "Wrong_Answer"
    assert "created files outside its work dir" in result.detail and outside.name in result.detail
    assert not outside.exists()  # the check removes what it found


def test_a_process_that_outlives_the_job_is_a_leak(tmp_path: Path) -> None:
    marker = unique_marker()
    left: list[subprocess.Popen[bytes]] = []
    # a check whose bare assert names no process (the runner then quotes its line), in a module of its own
    # because pytest would rewrite an assert written here into one with a message
    (tmp_path / "bare_check.py").write_text(
        "from ecot.audit.common import processes_matching\n\n\ndef check(marker):\n    assert processes_matching(marker) == []\n")
    spec = importlib.util.spec_from_file_location("bare_check", tmp_path / "bare_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    @contextlib.contextmanager
    def bare_check() -> Iterator[None]:
        yield
        module.check(marker)

    def process_left_behind(check: Callable[[], AbstractContextManager[None]]) -> Callable[[], Iterator[None]]:
        @contextlib.contextmanager
        def host() -> Iterator[None]:
            with check():
                yield
                left.append(subprocess.Popen([marker, "30"], executable="sleep"))  # what a job's escaped child would be
                deadline = time.monotonic() + 5.0
                while f"{marker} 30" not in " ".join(processes_matching(marker)) and time.monotonic() < deadline:
                    time.sleep(0.01)  # until it has exec'd: before that its command line is still this process's

        return host

    try:
        result = judge(listed(Case("process-left", TASK, WRONG, host=process_left_behind(bare_check)), Attack.ENDLESS_LOOP))
        shared = judge(listed(Case("process-left", TASK, WRONG, host=process_left_behind(no_process_left(marker, 0.3))),
                              Attack.ENDLESS_LOOP))
    finally:
        for process in left:
            process.kill()
            process.wait()
    assert result.verdict == Verdict.LEAK and "failed: assert processes_matching(marker) == []" in result.detail
    assert shared.verdict == Verdict.LEAK and f"{marker} 30" in shared.detail  # the shared check names what is left


def test_a_missing_tool_is_not_run_and_a_broken_check_an_error() -> None:
    @contextlib.contextmanager
    def needs_a_tool() -> Iterator[None]:
        raise ToolMissingError("ecot-no-such-tool")
        yield

    @contextlib.contextmanager
    def leftovers() -> Iterator[None]:
        raise AssertionError("remove leftovers of an earlier run first")
        yield

    result = judge(listed(Case("tool", TASK, WRONG, host=needs_a_tool)))
    assert (result.verdict, result.detail, result.failed) == (Verdict.NOT_RUN, "ecot-no-such-tool", False)
    result = judge(listed(Case("leftovers", TASK, WRONG, host=leftovers)))
    assert result.verdict == Verdict.ERROR and "leftovers" in result.detail


def test_a_known_failure_is_counted_apart_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(suite.KNOWN_FAILURES, ("python", "known-forgery"), "not contained yet: the reason")
    result = judge(listed(Case("known-forgery", TASK, RIGHT)))
    assert result.verdict == Verdict.FORGED and result.tally == "known failure" and not result.failed
    assert result.known_failure == "not contained yet: the reason"


def report(*domains: DomainResult) -> AuditReport:
    return AuditReport(ecot_version="test", isolation="bubblewrap", workers=1, domains=list(domains))


def result(verdict: Verdict, known: str | None = None) -> CaseResult:
    return CaseResult(domain="python", attack="network", case=f"case-{verdict}", verdict=verdict, known_failure=known)


PASSED = ControlResult(case="control", label="Pass")


@pytest.mark.parametrize(("domain", "status"), [
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.CONTAINED)]), 0),
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.CONTAINED), result(Verdict.FORGED, "known")]), 0),
    (DomainResult(domain="python", missing="bwrap"), 3),
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.NOT_RUN)]), 3),
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.NOT_RUN), result(Verdict.LEAK)]), 1),
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.UNCONTAINED)]), 1),
    (DomainResult(domain="python", control=PASSED, cases=[result(Verdict.ERROR)]), 1),
    (DomainResult(domain="python", control=ControlResult(case="control", label="Wrong_Answer"), cases=[result(Verdict.CONTAINED)]), 1),
    (DomainResult(domain="python", broken="SyntaxError"), 1),
])
def test_the_exit_status_says_escaped_incomplete_or_clean(domain: DomainResult, status: int) -> None:
    assert report(domain).exit_status == status


def audit(argv: list[str], env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "ecot", "audit", "hostile", *argv], capture_output=True, text=True,
                          env={**env, "COLUMNS": "120"}, timeout=timeout, check=False)


def test_without_the_sandbox_every_domain_is_not_run_and_the_audit_incomplete(tmp_path: Path) -> None:
    done = audit(["--json", str(tmp_path / "audit.json")], {"ECOT_SANDBOX": "rlimits"})
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.count("not run here: bwrap") == len(suite.DOMAINS)
    found = json.loads((tmp_path / "audit.json").read_text())
    assert [(d["domain"], d["missing"], d["cases"]) for d in found["domains"]] == [(d, "bwrap", []) for d in suite.DOMAINS]


@pytest.mark.slow
def test_a_whole_domain_through_the_worker_pool(tmp_path: Path) -> None:
    done = audit(["--domain", "rtl", "--workers", "2", "--json", str(tmp_path / "audit.json")])
    found = AuditReport.model_validate_json((tmp_path / "audit.json").read_text())
    if found.domains[0].missing:
        pytest.skip(f"the rtl audit needs the missing tool '{found.domains[0].missing}'")
    assert done.returncode == 0, done.stdout + done.stderr
    (rtl,) = found.domains
    assert rtl.control is not None and rtl.control.passed
    assert [(r.attack, r.case) for r in rtl.cases] == [(x.attack.value, x.case.name) for x in listed_cases("rtl")]
    assert {r.verdict for r in rtl.cases} == {Verdict.CONTAINED} and rtl.not_applicable
    assert "0 forged, 0 leaks" in done.stdout
    assert re.search(rf"\nrtl +{len(rtl.cases)} +{len(rtl.cases)} +0 +0 +0 +0 +{len(rtl.not_applicable)} ", done.stdout), done.stdout


def test_a_word_other_than_an_audits_name_is_a_suite_to_audit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "suites/mine"]) == 2
    assert "no suite or bundled domain named 'suites/mine'" in capsys.readouterr().err


def test_the_hostile_audits_help_loads_no_heavy_library(tmp_path: Path) -> None:
    code, modules, printed = loaded_by(["audit", "hostile", "--help"], tmp_path)
    assert code == 0 and printed.startswith("usage: ecot audit hostile ") and "Exit status" in printed
    assert {m.split(".")[0] for m in modules} & set(HELP_HEAVY) == set()


def test_the_printout_names_every_escape_failed_control_and_missing_tool() -> None:
    from rich.console import Console

    from ecot.cli import audit_hostile
    from ecot.cli.common import printing_to

    forged = CaseResult(domain="python", attack="forge_channel", case="forged-records", verdict=Verdict.FORGED, label="Pass",
                        detail="containment requires not_pass; got Pass: [bold]printed as is[/bold]")
    not_run = CaseResult(domain="asm", attack="instrumentation", case="counted", verdict=Verdict.NOT_RUN, detail="valgrind")
    printed = report(
        DomainResult(domain="python", control=PASSED, cases=[forged, result(Verdict.CONTAINED)]),
        DomainResult(domain="cad", control=ControlResult(case="oracle-control", label="Shape_Mismatch", detail="IoU 0.2"),
                     cases=[result(Verdict.CONTAINED)]),
        DomainResult(domain="asm", control=PASSED, cases=[not_run, result(Verdict.CONTAINED)]),
        DomainResult(domain="gpu", broken="SyntaxError: invalid syntax"),
        DomainResult(domain="rtl", missing="bwrap"),
    )
    terminal = Console(width=200, file=io.StringIO(), color_system=None)
    with printing_to(terminal):
        terminal.print(audit_hostile.summary_table(printed))
        audit_hostile._print_findings(printed)
    out = terminal.file.getvalue()  # type: ignore[attr-defined]
    assert re.search(r"\npython +2 +1 +1 +0 +0 +0 ", out) and re.search(r"\nall +4 +3 +1 +0 +0 +0 ", out), out
    assert "FORGED python / forge_channel / forged-records: containment requires not_pass; got Pass: [bold]printed as is[/bold]" in out
    assert "control failed (Shape_Mismatch)" in out and "cad: the control case oracle-control did not Pass: IoU 0.2" in out
    assert "1 not run here: valgrind" in out and "rtl" in out and "not run here: bwrap" in out
    assert "gpu: its cases do not load: SyntaxError: invalid syntax" in out
    assert "Incomplete: asm needs valgrind; rtl needs bwrap" in out
    assert printed.exit_status == 1
