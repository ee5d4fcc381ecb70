"""Task suites: folder and JSONL forms, strict validation with messages naming file and field."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from ecot.core.errors import TaskFormatError
from ecot.core.task import Task
from ecot.tasks.suite import bundled_domains, bundled_suite_path, first_domain, load_suite, write_jsonl, write_task_dir


def make_task(folder: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(toml)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder


GOOD = 'domain = "rtl"\nprompt = "build it"\nreference_file = "ref.sv"\n[options]\ntop = "m"\n[limits]\nwall_s = 5\n'


def test_folder_task_loads_with_bundle_and_reference(tmp_path: Path) -> None:
    make_task(tmp_path / "a", GOOD, {"ref.sv": "module m; endmodule\n", "tb.sv": "module tb; endmodule\n"})
    (task,) = load_suite(tmp_path)
    assert task.id == "a" and task.domain == "rtl"
    assert task.reference == "module m; endmodule\n"
    assert set(task.files) == {"tb.sv"}  # the reference is not part of the bundle
    assert task.limits.wall_s == 5 and task.option("top") == "m"


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ('prompt = "x"\n', "domain"),
        ('domain = "rtl"\nprompt = ""\n', "prompt"),
        ('domain = "rtl"\nprompt = "x"\n[limits]\nwall_s = -1\n', "limits.wall_s"),
        ('domain = "rtl"\nprompt = "x"\ncolour = "red"\n', "colour"),
        ('domain = "rtl"\nprompt = "x"\nreference_file = "nope.sv"\n', "reference_file"),
        ('domain = "rtl"\nprompt = = "x"\n', "invalid TOML"),
    ],
)
def test_bad_task_files_name_file_and_field(tmp_path: Path, toml: str, needle: str) -> None:
    make_task(tmp_path / "bad", toml)
    with pytest.raises(TaskFormatError) as err:
        load_suite(tmp_path)
    assert "task.toml" in str(err.value) and needle in str(err.value)


def test_jsonl_errors_name_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "a", "domain": "rtl", "prompt": "p"}) + "\n{not json\n")
    with pytest.raises(TaskFormatError, match=r"s.jsonl:2"):
        load_suite(path)
    path.write_text(json.dumps({"id": "a", "domain": "rtl", "prompt": "p", "files": {"../x": ""}}) + "\n")
    with pytest.raises(TaskFormatError, match="relative path"):
        load_suite(path)


def test_duplicate_ids_are_rejected_naming_both_places(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    line = json.dumps({"id": "a", "domain": "rtl", "prompt": "p"})
    path.write_text(line + "\n\n" + line + "\n")
    with pytest.raises(TaskFormatError, match=f"duplicate task id 'a' \\(in {path}:1 and {path}:3\\)"):
        load_suite(path)
    suite = tmp_path / "suite"
    for name in ("one", "two"):
        make_task(suite / name, 'id = "same"\n' + GOOD, {"ref.sv": "module m; endmodule\n"})
    with pytest.raises(TaskFormatError, match=f"duplicate task id 'same' \\(in {suite / 'one'} and {suite / 'two'}\\)"):
        load_suite(suite)


def test_a_task_file_with_several_problems_lists_them_all_with_the_closest_names(tmp_path: Path) -> None:
    toml = GOOD.replace("reference_file", "referenc_file").replace("wall_s", "wal_s").replace('top = "m"', 'tpo = "m"')
    make_task(tmp_path / "bad", toml, {"ref.sv": "module m; endmodule\n"})
    with pytest.raises(TaskFormatError) as err:
        load_suite(tmp_path)
    assert str(err.value) == (f"{tmp_path / 'bad' / 'task.toml'}: field 'limits.wal_s': unknown key (did you mean 'wall_s'?); "
                              "field 'referenc_file': unknown key (did you mean 'reference_file'?)")
    make_task(tmp_path / "options", GOOD.replace('top = "m"', 'tpo = "m"\nsynth = "sometimes"\nzzz = 1'),
              {"ref.sv": "module m; endmodule\n"})
    with pytest.raises(TaskFormatError) as err:
        load_suite(tmp_path / "options")
    assert "option 'synth': " in str(err.value) and "option 'tpo': unknown option (did you mean 'top'?)" in str(err.value)
    assert "option 'zzz': unknown option" in str(err.value) and "more problems" not in str(err.value)


def test_round_trip_folder_and_jsonl(tmp_path: Path) -> None:
    task = Task("x/one", "rtl", "prompt", {"tb.sv": "tb"}, "ref", {"top": "m"}, tags=("t",))
    write_task_dir(task, tmp_path / "suite" / "one", reference_name="reference.sv")
    write_jsonl([task], tmp_path / "s.jsonl")
    assert load_suite(tmp_path / "suite") == [task]
    assert load_suite(tmp_path / "s.jsonl") == [task]


def test_first_domain_reads_the_first_task_only_and_never_fails(tmp_path: Path) -> None:
    """What `ecot eval` warms its workers with while the suite loads: a guess, so a bad suite gives None
    (the load then says what is wrong) and a nested folder layout is followed in name order."""
    make_task(tmp_path / "nested" / "b" / "t2", 'domain = "python"\nprompt = "x"\n')
    make_task(tmp_path / "nested" / "a" / "t1", 'domain = "rtl"\nprompt = "x"\n')
    assert first_domain(tmp_path / "nested") == "rtl"
    assert first_domain(tmp_path / "nested" / "b" / "t2") == "python"
    write_jsonl([Task("x/one", "asm", "prompt", {}, "ref")], tmp_path / "s.jsonl")
    assert first_domain(tmp_path / "s.jsonl") == "asm"
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    make_task(tmp_path / "broken" / "t", "domain = = 1\n")
    make_task(tmp_path / "typed" / "t", "domain = 3\n")
    (tmp_path / "empty").mkdir()
    for path in ("bad.jsonl", "broken", "typed", "empty", "missing"):
        assert first_domain(tmp_path / path) is None, path


def test_tasks_are_immutable_and_picklable() -> None:
    task = Task("a", "rtl", "p", {"f": "x"}, options={"k": 1})
    with pytest.raises(TypeError):
        task.files["g"] = "y"  # type: ignore[index]
    assert pickle.loads(pickle.dumps(task)) == task


def test_bundled_rtl_suite_is_large_enough() -> None:
    assert "rtl" in bundled_domains()
    tasks = load_suite(bundled_suite_path("rtl"))
    assert len(tasks) >= 40
    assert all(t.reference and t.option("top") for t in tasks)
