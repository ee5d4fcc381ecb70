"""The task cache: facts about a task kept across processes, keyed by everything that makes them, written
atomically, never trusted over a fresh measurement when an entry is damaged, bypassed by ECOT_NO_CACHE."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from ecot.domains import taskcache


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ECOT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(taskcache.NO_CACHE_ENV, raising=False)
    taskcache.forget()
    yield tmp_path / "cache"
    taskcache.forget()


class Counter:
    """A measurement that counts how often it ran."""

    def __init__(self, fact: dict[str, Any]) -> None:
        self.fact, self.runs = fact, 0

    def __call__(self) -> dict[str, Any]:
        self.runs += 1
        return dict(self.fact)


def look(name: str, measure: Counter, dump: Any = dict) -> dict[str, Any]:
    return taskcache.lookup("test-kind", name, measure, dump, dict)


def entries(root: Path) -> list[Path]:
    return sorted((root / "tasks").rglob("*.json")) if (root / "tasks").exists() else []


def test_a_fact_is_measured_once_and_read_by_a_later_process(_own_cache: Path) -> None:
    name = taskcache.key("test-kind", {"a.sv": "module a; endmodule"}, "reference")
    measure = Counter({"samples": 20})
    assert look(name, measure) == {"samples": 20}
    assert look(name, measure) == {"samples": 20} and measure.runs == 1  # this process's memory
    taskcache.forget()  # a later process: only the folder can answer
    assert look(name, measure) == {"samples": 20} and measure.runs == 1
    [entry] = entries(_own_cache)
    assert json.loads(entry.read_text())["key"] == name
    assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700


@pytest.mark.parametrize("changed", ["files", "reference", "options", "limits", "tools", "code"])
def test_every_part_of_what_was_measured_is_in_the_key(changed: str) -> None:
    parts = {"files": {"tb.sv": "x"}, "reference": "r", "options": {"samples": None}, "limits": {"cpu_s": 20.0},
             "tools": ["iverilog 12.0"], "code": "abc"}
    before = taskcache.key("rtl-reference", *parts.values())
    parts[changed] = {"other": 1}
    assert taskcache.key("rtl-reference", *parts.values()) != before


def test_a_changed_tool_changes_its_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "bin" / "faketool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho 'faketool 1.0'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
    taskcache.tool_identity.cache_clear()
    first = taskcache.tool_identity("faketool")
    tool.write_text("#!/bin/sh\necho 'faketool 1.0 rebuilt'\n")  # same version line's length changes the size
    later = tool.stat().st_mtime_ns + 5_000_000_000
    os.utime(tool, ns=(later, later))
    taskcache.tool_identity.cache_clear()
    assert taskcache.tool_identity("faketool") != first
    assert taskcache.tool_identity("no-such-tool-here").endswith("missing")
    taskcache.tool_identity.cache_clear()


def test_a_damaged_entry_is_measured_again_and_replaced(_own_cache: Path) -> None:
    name = taskcache.key("test-kind", "damaged")
    measure = Counter({"samples": 7})
    look(name, measure)
    [entry] = entries(_own_cache)
    for damage in ("{not json", json.dumps({"format": 1, "key": "0" * 64, "facts": {"samples": 99}}), json.dumps([1])):
        entry.write_text(damage)
        taskcache.forget()
        assert look(name, measure) == {"samples": 7}
    assert measure.runs == 4
    assert json.loads(entry.read_text())["facts"] == {"samples": 7}


def test_an_entry_the_reader_refuses_is_measured_again(_own_cache: Path) -> None:
    name = taskcache.key("test-kind", "refused")
    measure = Counter({"samples": 3})
    look(name, measure)
    taskcache.forget()

    def strict(entry: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("not a profile")

    assert taskcache.lookup("test-kind", name, measure, dict, strict) == {"samples": 3} and measure.runs == 2


def test_a_measurement_the_caller_does_not_keep_is_not_written(_own_cache: Path) -> None:
    measure = Counter({"failed": True})
    look(taskcache.key("test-kind", "failed"), measure, dump=lambda fact: None)
    assert entries(_own_cache) == []


def test_no_cache_neither_reads_nor_writes_the_folder(_own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = taskcache.key("test-kind", "bypassed")
    look(name, Counter({"samples": 1}))
    taskcache.forget()
    monkeypatch.setenv(taskcache.NO_CACHE_ENV, "1")
    measure = Counter({"samples": 2})
    assert look(name, measure) == {"samples": 2} and measure.runs == 1  # measured, not read
    other = taskcache.key("test-kind", "never written")
    look(other, Counter({"samples": 3}))
    assert [p.stem for p in entries(_own_cache)] == [name]


def test_an_unwritable_folder_costs_a_measurement_not_an_error(_own_cache: Path) -> None:
    _own_cache.mkdir(parents=True)
    (_own_cache / "tasks").write_text("a file where the folder should be")
    measure = Counter({"samples": 5})
    assert look(taskcache.key("test-kind", "unwritable"), measure) == {"samples": 5}


def test_names_that_are_not_keys_are_refused(_own_cache: Path) -> None:
    assert taskcache.read("test-kind", "../../../etc/passwd") is None
    for kind, name in (("test-kind", "../../x"), ("../escape", "0" * 64)):
        with pytest.raises(ValueError):
            taskcache.write(kind, name, {"samples": 1})
    assert not _own_cache.exists()


def _writer(root: str, name: str, value: int) -> None:
    os.environ["ECOT_CACHE"] = root
    for _ in range(50):
        taskcache.write("test-kind", name, {"samples": value, "padding": "x" * 20_000})


def test_concurrent_writers_leave_one_whole_entry(_own_cache: Path) -> None:
    name = taskcache.key("test-kind", "concurrent")
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(str(_own_cache), name, i)) for i in range(4)]
    for process in writers:
        process.start()
    seen = set()
    while any(p.is_alive() for p in writers):
        found = taskcache.read("test-kind", name)
        if found is not None:
            seen.add(found["samples"])  # a reader never meets half an entry
    for process in writers:
        process.join()
        assert process.exitcode == 0
    assert taskcache.read("test-kind", name) is not None
    leftovers = [p for p in (_own_cache / "tasks").rglob("*") if p.is_file() and not p.name.endswith(".json")]
    assert leftovers == [] and seen <= {0, 1, 2, 3}
