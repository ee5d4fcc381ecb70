"""Toolchain versions: probed once per binary, remembered across processes, probed again when the
binary changes; the cache file is never trusted over the binary and never fatal."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ecot.domains import versions
from ecot.domains.versions import UNKNOWN, VersionCache, tool_version


def fake_tool(folder: Path, name: str, answer: str) -> tuple[Path, Path]:
    """An executable that prints `answer` to any flag and counts its runs in a file beside it."""
    counter = folder / f"{name}.runs"
    tool = folder / name
    tool.write_text(f"#!/bin/sh\necho run >> '{counter}'\necho '{answer}'\n", encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool, counter


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


@pytest.fixture
def tool(tmp_path: Path) -> tuple[Path, Path]:
    return fake_tool(tmp_path, "faketool", "faketool version 1.2.3 (test)")


def test_the_first_line_with_a_version_number_is_the_version(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    assert VersionCache(tmp_path / "v.json").version(str(path)) == "faketool version 1.2.3 (test)"
    assert runs(counter) == 1


def test_a_second_call_and_a_second_process_do_not_run_the_binary(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    cache_file = tmp_path / "v.json"
    first = VersionCache(cache_file)
    assert first.version(str(path)) == first.version(str(path))
    later_process = VersionCache(cache_file)  # empty memory: only the file can answer
    assert later_process.version(str(path)) == "faketool version 1.2.3 (test)"
    assert runs(counter) == 1
    entry = json.loads(cache_file.read_text())["tools"][str(path.resolve())]
    assert entry["size"] == path.stat().st_size and entry["mtime_ns"] == path.stat().st_mtime_ns


def test_a_changed_binary_is_probed_again(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    cache_file = tmp_path / "v.json"
    assert VersionCache(cache_file).version(str(path)).endswith("1.2.3 (test)")
    fake_tool(tmp_path, "faketool", "faketool version 2.0.0 (upgraded)")  # same path, new contents
    later = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    assert VersionCache(cache_file).version(str(path)) == "faketool version 2.0.0 (upgraded)"
    assert runs(counter) == 2
    assert json.loads(cache_file.read_text())["tools"][str(path.resolve())]["version"].endswith("(upgraded)")


def test_a_touched_binary_is_probed_again_in_the_same_process(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    cache = VersionCache(tmp_path / "v.json")
    cache.version(str(path))
    later = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    cache.version(str(path))
    assert runs(counter) == 2


@pytest.mark.parametrize("damage", ["{not json", "[1, 2]", '{"format": 1, "tools": []}', "", '{"format": 99, "tools": {}}'])
def test_a_corrupt_cache_file_is_survived_and_rewritten(tmp_path: Path, tool: tuple[Path, Path], damage: str) -> None:
    path, counter = tool
    cache_file = tmp_path / "v.json"
    cache_file.write_text(damage)
    assert VersionCache(cache_file).version(str(path)) == "faketool version 1.2.3 (test)"
    assert runs(counter) == 1
    assert str(path.resolve()) in json.loads(cache_file.read_text())["tools"]


def test_an_entry_of_the_wrong_shape_is_probed_again(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    cache_file = tmp_path / "v.json"
    cache_file.write_text(json.dumps({"format": 1, "tools": {str(path.resolve()): {"version": 3}}}))
    assert VersionCache(cache_file).version(str(path)).startswith("faketool")
    assert runs(counter) == 1


def test_an_unwritable_cache_folder_costs_a_probe_not_an_error(tmp_path: Path, tool: tuple[Path, Path]) -> None:
    path, counter = tool
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    cache = VersionCache(blocker / "v.json")
    assert cache.version(str(path)).startswith("faketool")
    assert cache.version(str(path)).startswith("faketool")
    assert runs(counter) == 1  # still remembered in memory


def test_a_mute_tool_is_unknown_not_cached_on_disk_and_not_rerun_in_process(tmp_path: Path) -> None:
    path, counter = fake_tool(tmp_path, "mute", "no numbers here")
    cache_file = tmp_path / "v.json"
    cache = VersionCache(cache_file)
    assert cache.version(str(path)) == UNKNOWN
    assert cache.version(str(path)) == UNKNOWN
    assert runs(counter) == 2  # --version, then -V; once each
    assert not cache_file.exists()


def test_a_missing_tool_is_unknown(tmp_path: Path) -> None:
    assert VersionCache(tmp_path / "v.json").version(str(tmp_path / "no-such-tool")) == UNKNOWN


def test_tool_version_keeps_its_cache_in_the_user_cache_folder(tmp_path: Path, tool: tuple[Path, Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path, counter = tool
    monkeypatch.delenv("ECOT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tool_version(str(path)).startswith("faketool")
    assert (tmp_path / "xdg" / "ecot" / "versions.json").is_file()
    monkeypatch.setenv("ECOT_CACHE", str(tmp_path / "explicit"))
    assert versions.cache_dir() == tmp_path / "explicit"
    assert tool_version(str(path)).startswith("faketool")  # a new file: probed once more
    assert runs(counter) == 2
    assert (tmp_path / "explicit" / "versions.json").is_file()


def test_a_tool_found_on_path_is_cached_by_its_resolved_file(tmp_path: Path, tool: tuple[Path, Path],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path, counter = tool
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "alias").symlink_to(path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    cache = VersionCache(tmp_path / "v.json")
    assert cache.version("alias").startswith("faketool")
    assert cache.version(str(path)).startswith("faketool")  # the same file under its own name
    assert runs(counter) == 1
