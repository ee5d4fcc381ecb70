"""Under ECOT_REQUIRE_TOOLS=1 (CI) a skip for a missing tool fails the run and names the tool; GPU skips
stay skips; without the switch every skip is a skip. Each side runs pytest on the same test file in a
fresh process, with tests/require_tools.py as its plugin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from require_tools import SWITCH

TESTS = Path(__file__).resolve().parent
CASES = '''
import pytest
from require_tools import skip_gpu_only


def test_skips_for_a_tool():
    pytest.skip("needs the missing tool 'ecot-no-such-tool'")


@pytest.mark.skipif(True, reason="needs the missing tool 'ecot-no-such-marked-tool'")
def test_marked_to_skip():
    pass


@pytest.mark.gpu
def test_marked_gpu():
    pytest.skip("needs an NVIDIA GPU with CUDA")


def test_skips_for_the_gpu():
    skip_gpu_only("this machine has a GPU: another test covers it")


@pytest.mark.xfail(reason="a known failure", strict=True)
def test_known_failure():
    assert False


def test_runs():
    pass
'''
MODULE_SKIP = 'import pytest\n\npytest.importorskip("ecot_no_such_module")\n\n\ndef test_never():\n    pass\n'


def run_pytest(tmp_path: Path, switch: str | None) -> tuple[int, str]:
    (tmp_path / "test_cases.py").write_text(CASES)
    (tmp_path / "test_module_skip.py").write_text(MODULE_SKIP)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    gpu: needs an NVIDIA GPU\n")
    env = {k: v for k, v in os.environ.items() if k != SWITCH}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    if switch is not None:
        env[SWITCH] = switch
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "require_tools", "-p", "no:cacheprovider", "-rfEs",
                           "--continue-on-collection-errors", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_with_the_switch_a_missing_tool_fails_and_names_it(tmp_path: Path) -> None:
    code, output = run_pytest(tmp_path, "1")
    assert code == 1, output
    refused = re.escape(f"{SWITCH}=1, so this test may not skip: needs the missing tool")
    assert re.search(rf"_ test_skips_for_a_tool _+\n{refused} 'ecot-no-such-tool'\n", output), output
    assert re.search(rf"_ ERROR at setup of test_marked_to_skip _+\n{refused} 'ecot-no-such-marked-tool'\n", output), output
    assert f"{SWITCH}=1, so collecting test_module_skip.py may not skip: could not import 'ecot_no_such_module'" in output, output
    assert "1 failed, 1 passed, 2 skipped, 1 xfailed, 2 errors" in output, output


def test_gpu_skips_stay_skips_and_without_the_switch_nothing_fails(tmp_path: Path) -> None:
    code, output = run_pytest(tmp_path, None)
    assert code == 0, output
    assert "1 passed, 5 skipped, 1 xfailed" in output, output
    code, output = run_pytest(tmp_path, "0")
    assert code == 0 and "1 passed, 5 skipped, 1 xfailed" in output, output
