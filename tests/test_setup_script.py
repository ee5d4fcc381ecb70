"""scripts/setup.sh prints one line per step; what pip says (a machine's pip configuration may name index
folders it lacks, and pip warns about each for every package) goes to a log that a failed step shows.
pip is a stand-in here that prints such warnings: installing torch for real is not a test's job."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WARNING = "WARNING: Location 'file:///opt/pypi-more/simple/{}/' is ignored: it is either a non-existing path or lacks a specific scheme."
FAKE_PIP = f"""#!/bin/sh
echo "$@" >> "$(dirname "$0")/pip-calls"
for n in $(seq 1 150); do echo "{WARNING.format('pkg$n')}" >&2; done
echo "Successfully installed something"
exit ${{FAKE_PIP_STATUS:-0}}
"""


def apt_packages() -> list[str]:
    text = (ROOT / "scripts" / "setup.sh").read_text()
    line = next(line for line in text.splitlines() if line.startswith("APT_PACKAGES=("))
    return line.removeprefix("APT_PACKAGES=(").removesuffix(")").split()


def installed(package: str) -> bool:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return "install ok installed" in done.stdout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    missing = [p for p in apt_packages() if not shutil.which("dpkg-query") or not installed(p)]
    if missing:
        pytest.skip(f"setup.sh would install the missing Debian packages {', '.join(missing)}")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "pip").write_text(FAKE_PIP)
    (bin_dir / "pip").chmod(0o755)
    return tmp_path


def setup(checkout: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(checkout / "scripts" / "setup.sh")], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ECOT_VENV": str(checkout / "venv"), **env})


def test_setup_prints_one_line_per_step_and_keeps_pips_warnings_in_its_log(checkout: Path) -> None:
    done = setup(checkout)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" ... ")[-1] for line in lines[:3]] == ["ok", "ok", "ok"] and len(lines) == 4, lines
    assert "torch" in lines[0] and lines[3].startswith("ecot setup: done")
    assert "WARNING" not in done.stdout + done.stderr
    log = (checkout / "venv" / "setup.log").read_text()
    assert log.count("is ignored") == 3 * 150  # pip ran three times, and its words are kept
    assert len((checkout / "venv" / "bin" / "pip-calls").read_text().splitlines()) == 3
    again = setup(checkout)  # nothing changed: nothing to do, nothing printed
    assert again.returncode == 0 and again.stdout == "" and again.stderr == ""


def test_a_failed_step_says_which_and_shows_the_end_of_the_log(checkout: Path) -> None:
    done = setup(checkout, FAKE_PIP_STATUS="3")
    assert done.returncode == 3
    first, *shown = done.stdout.splitlines()
    assert first.startswith("ecot setup: installing torch") and first.endswith(f"failed (exit 3); the last lines of {checkout / 'venv' / 'setup.log'}:")
    assert shown[-1] == "  Successfully installed something" and 30 <= len(shown) <= 40
    assert not (checkout / "venv" / ".ecot-installed").exists()  # a rerun tries again
