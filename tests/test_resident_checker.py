"""The resident checker: `ecot check` through it prints and exits exactly as in its own process, declines
what it must not answer, and starts, stops and idles out cleanly. Real processes, real toolchains."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ecot.cli import checker_link
from ecot.cli.checker_server import CodeWatch
from ecot.tasks.suite import bundled_suite_path
from resident_checker import checks_served, ecot, log_of, running_checker, without_timings

RTL_TASK = "rtl/add8_carry"
PY_TASK = "python/two_sum"


@pytest.fixture(scope="module")
def resident(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    if shutil.which("iverilog") is None or shutil.which("yosys") is None:
        pytest.skip("the rtl toolchain (iverilog, yosys) is missing")
    with running_checker(tmp_path_factory.mktemp("resident")) as env:
        yield env


def candidates(folder: Path) -> dict[str, Path]:
    rtl = (bundled_suite_path("rtl") / "add8_carry" / "reference.sv").read_text(encoding="utf-8")
    py = (bundled_suite_path("python") / "two_sum" / "reference.py").read_text(encoding="utf-8")
    files = {
        "right.sv": rtl,
        "wrong.sv": rtl.replace("assign cout  = total[8];", "assign cout  = total[7];"),
        "broken.sv": rtl.replace("endmodule", ""),
        "right.py": py,
        "wrong.py": "def two_sum(nums, target):\n    return [0, 0]\n",
    }
    assert files["wrong.sv"] != rtl, "the planted bug no longer applies to the reference"
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: folder / name for name in files}


COMMAND_LINES = [
    [RTL_TASK, "right.sv"],
    [RTL_TASK, "wrong.sv"],
    [RTL_TASK, "broken.sv", "--log"],
    [RTL_TASK, "right.sv", "--json"],
    [RTL_TASK, "--reference"],
    [PY_TASK, "right.py"],
    [PY_TASK, "wrong.py", "--json"],
    [RTL_TASK, "missing.sv"],  # an error the user can fix: exit 2, one line
    [RTL_TASK, "right.sv", "--no-such-flag"],  # a usage error from argparse
    ["rtl/no_such_task", "right.sv"],
]


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=lambda argv: " ".join(argv))
def test_output_and_status_match_a_check_in_its_own_process(resident: dict[str, str], tmp_path: Path, argv: list[str]) -> None:
    candidates(tmp_path)
    before = checks_served(resident)
    served = ecot(["check", *argv], resident, cwd=tmp_path)  # relative paths: the caller's folder counts
    alone = ecot(["check", *argv], {**resident, "ECOT_CHECKER": "off"}, cwd=tmp_path)
    assert checks_served(resident) == before + 1, "the check did not go through the resident checker"
    assert served.returncode == alone.returncode
    assert without_timings(served.stdout) == without_timings(alone.stdout)
    assert served.stderr == alone.stderr


def test_a_terminal_gets_the_same_colours_and_width(resident: dict[str, str], tmp_path: Path) -> None:
    files = candidates(tmp_path)
    coloured = {**resident, "FORCE_COLOR": "1", "COLUMNS": "50"}  # rich: colours and a 50-column terminal
    served = ecot(["check", RTL_TASK, str(files["wrong.sv"])], coloured)
    alone = ecot(["check", RTL_TASK, str(files["wrong.sv"])], {**coloured, "ECOT_CHECKER": "off"})
    assert "\x1b[" in served.stdout
    for output in (served.stdout, alone.stdout):
        plain = re.sub(r"\x1b\[[0-9;]*m", "", output)
        assert max(len(line) for line in plain.splitlines()) <= 50
    assert digits_blanked(served.stdout) == digits_blanked(alone.stdout)


def digits_blanked(coloured: str) -> str:
    """rich colours the parts of a number apart, so a measured one is blanked digit run by digit run;
    the colour codes themselves stay. A measured number's width moves where rich wraps a line, so
    runs of spaces and line breaks compare as one space."""
    blanked = re.sub(r"(\x1b\[[0-9;]*m)|\d+", lambda found: found.group(1) or "#", coloured)
    return re.sub(r"\s+", " ", blanked)


def test_a_caller_with_another_environment_is_declined_and_checks_itself(resident: dict[str, str], tmp_path: Path) -> None:
    files = candidates(tmp_path)
    before = checks_served(resident)
    other = ecot(["check", RTL_TASK, str(files["right.sv"])], {**resident, "ECOT_CACHE": str(tmp_path / "cache")})
    assert other.returncode == 0 and "Pass" in other.stdout
    assert checks_served(resident) == before
    why = "the caller's environment differs from the checker's in ECOT_CACHE"
    assert f"declined a check: {why}" in log_of(resident)
    assert other.stderr == f"ecot check: the resident checker declined: {why}; checking in this process (slower; the checker says so once)\n"
    again = ecot(["check", RTL_TASK, str(files["right.sv"])], {**resident, "ECOT_CACHE": str(tmp_path / "cache")})
    assert again.returncode == 0 and again.stderr == "" and checks_served(resident) == before  # said once


def test_another_path_that_finds_the_same_toolchain_is_served(resident: dict[str, str], tmp_path: Path) -> None:
    files = candidates(tmp_path)
    shims = tmp_path / "shims"  # what pyenv puts first on a subprocess's PATH: interpreters, no toolchain
    shims.mkdir()
    (shims / "python3").symlink_to(sys.executable)
    before = checks_served(resident)
    shimmed = {**resident, "PATH": f"{shims}{os.pathsep}{resident['PATH']}"}
    served = ecot(["check", RTL_TASK, str(files["right.sv"])], shimmed)
    assert served.returncode == 0 and "Pass" in served.stdout and served.stderr == ""
    assert checks_served(resident) == before + 1
    (shims / "yosys").symlink_to("/bin/true")  # now this PATH finds another yosys: the result could differ
    declined = ecot(["check", RTL_TASK, str(files["right.sv"])], shimmed)
    assert checks_served(resident) == before + 1
    assert f"the caller's PATH finds yosys at {os.path.realpath('/bin/true')}, the checker's at" in declined.stderr


def test_help_is_printed_by_the_caller(resident: dict[str, str]) -> None:
    before = checks_served(resident)
    shown = ecot(["check", "--help"], resident)
    assert shown.returncode == 0 and "--reference" in shown.stdout
    assert checks_served(resident) == before


def test_start_twice_stop_twice_and_status(tmp_path: Path) -> None:
    with running_checker(tmp_path) as env:
        again = ecot(["checker", "start"], env)
        assert again.returncode == 0 and "already runs" in again.stdout
        assert checks_served(env) == 0
    assert ecot(["checker", "status"], env).returncode == 1
    stopped = ecot(["checker", "stop"], env)
    assert stopped.returncode == 0 and "no resident checker answers" in stopped.stdout
    assert not Path(env["ECOT_CHECKER_SOCKET"]).exists()


def test_it_stops_when_idle(tmp_path: Path) -> None:
    with running_checker(tmp_path, idle_minutes="0.02") as env:  # 1.2 s
        socket = Path(env["ECOT_CHECKER_SOCKET"])
        deadline = time.monotonic() + 30
        while socket.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not socket.exists()
        assert "no request for 1.2 s: stopping" in log_of(env)


def test_a_killed_checker_leaves_checks_working_and_can_be_restarted(tmp_path: Path) -> None:
    files = candidates(tmp_path)
    with running_checker(tmp_path) as env:
        pid = int(ecot(["checker", "status"], env).stdout.split("pid ")[1].split(",")[0])
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while ecot(["checker", "status"], env).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert Path(env["ECOT_CHECKER_SOCKET"]).exists(), "a killed checker cannot remove its socket"
        alone = ecot(["check", RTL_TASK, str(files["right.sv"])], env)
        assert alone.returncode == 0 and "Pass" in alone.stdout
        restarted = ecot(["checker", "start"], env)
        assert restarted.returncode == 0 and "ready" in restarted.stdout
        assert checks_served(env) == 0


def test_a_folder_others_can_enter_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    env = {**os.environ, "ECOT_CHECKER_SOCKET": str(folder / "checker.sock")}
    refused = ecot(["checker", "start", "--foreground"], env)
    assert refused.returncode == 2 and "is not a private folder" in refused.stderr
    assert not checker_link.is_private(str(folder))
    assert checker_link.exchange({"op": "status"}, str(folder / "checker.sock")) is None


def test_the_link_refuses_a_link_to_a_private_folder(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (tmp_path / "alias").symlink_to(private)
    assert checker_link.is_private(str(private))
    assert not checker_link.is_private(str(tmp_path / "alias"))


def test_the_code_watch_sees_a_loaded_module_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "probe.py"
    source.write_text("x = 1\n", encoding="utf-8")
    module = ModuleType("ecot._probe_for_test")
    module.__file__ = str(source)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    watch = CodeWatch()
    assert not watch.changed()
    source.write_text("x = 22\n", encoding="utf-8")
    assert watch.changed()


def test_checks_sent_at_once_are_answered_one_after_another(resident: dict[str, str], tmp_path: Path) -> None:
    files = candidates(tmp_path)
    before = checks_served(resident)
    names = ["right.sv", "wrong.sv", "right.py", "wrong.py"]
    tasks = {"sv": RTL_TASK, "py": PY_TASK}
    running = [subprocess.Popen([sys.executable, "-m", "ecot", "check", tasks[name.split(".")[1]], str(files[name])],
                                stdout=subprocess.PIPE, text=True, env=resident) for name in names]
    codes = [(proc.wait(timeout=120), proc.stdout.read() if proc.stdout else "") for proc in running]
    assert [code for code, _ in codes] == [0, 1, 0, 1], codes
    assert checks_served(resident) == before + len(names)
