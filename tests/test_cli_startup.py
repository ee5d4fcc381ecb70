"""The command line loads only what the chosen subcommand needs: `ecot --help` no subcommand module,
a one-shot `ecot check` no other subcommand and none of the heavy libraries other commands use.
Each probe runs in a fresh interpreter, so what it reports is what that command alone imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ecot.cli.main import COMMANDS, build_parser, chosen_command, main
from ecot.core.errors import EcotError

SRC = str(Path(__file__).resolve().parents[1] / "src")
HEAVY = ("rich", "numpy", "jinja2", "torch", "ray", "datasets", "httpx", "transformers", "asyncio", "tomli_w")
PROBE = """
import json, sys
from ecot.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_by(argv: list[str], tmp_path: Path) -> tuple[int, list[str], str]:
    """Run `ecot argv` in a fresh interpreter: its exit status, every module it loaded, what it printed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]), "ECOT_CACHE": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, timeout=120, check=False)
    *printed, last = proc.stdout.splitlines()
    report = json.loads(last)
    return int(report["code"] or 0), report["modules"], "\n".join(printed)


def subcommand_modules(modules: list[str]) -> set[str]:
    return {name for name, _ in COMMANDS.values()} & set(modules)


def heavy(modules: list[str]) -> set[str]:
    return {m.split(".")[0] for m in modules if m.split(".")[0] in HEAVY}


def test_top_level_help_lists_every_subcommand_and_imports_none(tmp_path: Path) -> None:
    code, modules, printed = loaded_by(["--help"], tmp_path)
    assert code == 0
    for name in COMMANDS:
        assert f"    {name} " in printed
    assert "Fix%," in printed  # a literal % in a help line is shown, not taken for a format
    assert subcommand_modules(modules) == set()
    assert heavy(modules) == set()
    assert "pydantic" not in modules


def test_a_subcommands_help_imports_that_subcommand_only(tmp_path: Path) -> None:
    code, modules, printed = loaded_by(["check", "--help"], tmp_path)
    assert code == 0
    assert "--reference" in printed and "TASK is a task folder" in printed  # the module's own arguments and docstring
    assert subcommand_modules(modules) == {"ecot.cli.check"}


# Libraries no subcommand needs to parse its command line: `ecot CMD --help` must load none of them.
HELP_HEAVY = ("asyncio", "numpy", "pydantic", "rich", "sqlite3", "torch", "transformers", "jinja2", "ray", "sklearn")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_subcommands_help_loads_no_heavy_library(command: str, tmp_path: Path) -> None:
    code, modules, printed = loaded_by([command, "--help"], tmp_path)
    assert code == 0
    assert printed.startswith(f"usage: ecot {command} ")
    loaded = {m.split(".")[0] for m in modules}
    assert loaded & set(HELP_HEAVY) == set()
    assert subcommand_modules(modules) == {COMMANDS[command][0]}


@pytest.mark.skipif(shutil.which("iverilog") is None or shutil.which("yosys") is None, reason="needs iverilog and yosys")
def test_a_one_shot_check_loads_no_other_subcommand_and_no_heavy_library(tmp_path: Path) -> None:
    code, modules, printed = loaded_by(["check", "rtl/add8_carry", "--reference", "--json"], tmp_path)
    assert code == 0
    assert json.loads(printed)["label"] == "Pass"
    assert subcommand_modules(modules) == {"ecot.cli.check"}
    assert heavy(modules) == set()
    assert (tmp_path / "versions.json").is_file()  # the toolchain versions were probed into the cache


def test_the_console_is_made_once_on_first_use() -> None:
    from ecot.cli import common

    assert common.console is common.console  # made once, on first use
    with pytest.raises(AttributeError):
        common.no_such_thing  # noqa: B018 - the module's __getattr__ must refuse other names


def test_python_dash_m_ecot_is_the_cli() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "ecot", "--version"], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("ecot ")


@pytest.mark.parametrize("argv, chosen", [
    (["check", "rtl/x"], "check"),
    (["-v", "eval", "--domain", "rtl"], "eval"),
    (["--verbose", "import", "check"], "import"),
    (["--help"], None),
    (["nonsense", "check"], None),
    (["--", "check"], None),
    ([], None),
])
def test_the_chosen_subcommand_is_the_first_operand(argv: list[str], chosen: str | None) -> None:
    assert chosen_command(argv) == chosen


def test_only_the_chosen_subcommand_gets_its_arguments() -> None:
    args = build_parser("check").parse_args(["check", "rtl/x", "--reference"])
    assert args.reference and args.task == "rtl/x"
    with pytest.raises(SystemExit):
        build_parser(None).parse_args(["check", "rtl/x", "--reference"])  # not built: --reference is unknown


def test_an_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["chekc", "rtl/x"])
    assert exit.value.code == 2
    assert "invalid choice: 'chekc'" in capsys.readouterr().err


def test_no_subcommand_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_a_bundled_task_id_reads_only_its_own_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.cli import common
    from ecot.core.task import Task
    from ecot.tasks.suite import bundled_suite_path, load_suite

    read: list[Path] = []

    def recorded(path: Path) -> list[Task]:
        read.append(Path(path))
        return load_suite(path)

    monkeypatch.setattr(common, "load_suite", recorded)
    task = common.find_task("rtl/add8_carry")
    assert task.id == "rtl/add8_carry" and task.reference
    assert read == [bundled_suite_path("rtl") / "add8_carry"]


def test_a_task_whose_folder_has_another_name_is_still_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot.cli import common

    for folder, task_id in (("alpha", "toy/beta"), ("beta", "toy/alpha")):  # folder names swapped on purpose
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "task.toml").write_text(f'id = "{task_id}"\ndomain = "toy"\nprompt = "p"\n')
    monkeypatch.setattr(common, "bundled_domains", lambda: ["toy"])
    monkeypatch.setattr(common, "bundled_suite_path", lambda domain: tmp_path)
    assert common.find_task("toy/alpha").id == "toy/alpha"
    assert common.find_task("toy/beta").id == "toy/beta"
    with pytest.raises(EcotError, match="no task with id 'toy/gamma'"):
        common.find_task("toy/gamma")


def test_a_built_in_name_resolves_without_scanning_installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from ecot.core.errors import UnknownNameError
    from ecot.core.registry import Registry

    scanned: list[str] = []

    def entry_points(group: str) -> list[importlib.metadata.EntryPoint]:
        scanned.append(group)
        return [importlib.metadata.EntryPoint("plugged", "json:loads", group)]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    registry: Registry[object] = Registry("things", {"built_in": "json:dumps"})
    assert registry.get("built_in") is json.dumps
    assert scanned == []
    assert registry.get("plugged") is json.loads  # a name that is not built in: the plug-ins are read
    with pytest.raises(UnknownNameError):
        registry.get("neither")
    assert scanned == ["ecot.things"]
