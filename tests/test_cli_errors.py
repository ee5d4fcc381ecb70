"""Bad input on the command line: a one-line `ecot: error:` and exit status 2, never a traceback, a hang,
or a deleted or silently rewritten file. Each test pins one problem an audit of the CLI found."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from ecot.cli.main import main
from ecot.core.errors import EcotError, TaskFormatError
from ecot.icwm import load_model
from ecot.serve.server import ReplayResponder, create_server
from ecot.store import StoreError, TrajectoryStore
from ecot.tasks.suite import bundled_suite_path, load_suite

TASK = "python/bracket_depth"


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run `ecot argv`, require exit status 2, return the one-line error."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real store: two Python tasks, repair generator (about a second)."""
    path = tmp_path_factory.mktemp("cli-errors") / "ecot.db"
    assert main(["synth", "--domain", "python", "--limit", "2", "--store", str(path), "--no-export", "--workers", "1"]) == 0
    return path


@pytest.fixture(scope="module")
def model_dir(store: Path) -> Path:
    folder = store.parent / "model"
    assert main(["icwm", "train", "--store", str(store), "--out", str(folder), "--all-tasks"]) == 0
    return folder


# -- the store ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("damage, message", [("truncated", "is damaged"), ("random", "not a readable trajectory store")])
def test_a_file_that_is_not_sqlite_is_a_store_error(tmp_path: Path, store: Path, damage: str, message: str) -> None:
    path = tmp_path / "bad.db"
    path.write_bytes(store.read_bytes()[:8192] if damage == "truncated" else b"\x00garbage" * 600)
    with pytest.raises(StoreError, match=message):
        TrajectoryStore(path)


def test_another_programs_database_is_refused_and_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE foo (x)")
    line = error_of(capsys, ["stats", "--store", str(path)])
    assert "not a trajectory store (tables: foo)" in line
    with sqlite3.connect(path) as conn:  # no ecot table was added to it
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["foo"]


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    TrajectoryStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, 'future', 'x')")
    with pytest.raises(StoreError, match="schema version 99"):
        TrajectoryStore(path)


def test_damage_found_while_reading_is_one_line(store: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def damaged(*_args: object, **_kwargs: object) -> None:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(TrajectoryStore, "iter_trajectories", damaged)
    line = error_of(capsys, ["stats", "--store", str(store)])
    assert line.startswith(f"ecot: error: the trajectory store {store} is damaged (database disk image is malformed); "
                           "stopped at the damaged page")


def test_a_store_path_that_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["synth", "--domain", "python", "--limit", "1", "--store", str(tmp_path), "--no-export"])
    assert f"cannot open the trajectory store {tmp_path}" in line


# -- export and stats --------------------------------------------------------------------------------
def test_export_out_must_be_a_folder(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert "exists and is not a folder" in error_of(capsys, ["export", "--store", str(store), "--out", str(a_file)])
    assert "Not a directory" in error_of(capsys, ["export", "--store", str(store), "--out", str(a_file / "corpus")])


def test_synth_checks_its_out_folder_before_synthesizing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    fresh = tmp_path / "fresh.db"
    line = error_of(capsys, ["synth", "--domain", "python", "--limit", "1", "--store", str(fresh), "--out", str(a_file)])
    assert "--out" in line and not fresh.exists()


def test_an_unknown_run_is_an_error_and_keeps_the_corpus(store: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "corpus"
    assert main(["export", "--store", str(store), "--out", str(out)]) == 0
    before = (out / "train.jsonl").read_text()
    assert before
    assert "has no run 99 (runs: 1)" in error_of(capsys, ["export", "--store", str(store), "--out", str(out), "--run", "99"])
    assert (out / "train.jsonl").read_text() == before
    assert "has no run 99" in error_of(capsys, ["stats", "--store", str(store), "--run", "99"])
    line = error_of(capsys, ["export", "--store", str(store), "--out", str(out), "--domain", "pyhton"])
    assert "'pyhton' is not a domain" in line and (out / "train.jsonl").read_text() == before


@pytest.mark.timeout(60)
def test_zero_fold_concurrency_is_an_error_not_a_hang(store: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["export", "--store", str(store), "--out", str(tmp_path / "c"), "--fold-with", "openai",
            "--fold-model", "m", "--fold-base-url", "http://127.0.0.1:9/v1", "--fold-concurrency", "0"]
    assert "--fold-concurrency must be >= 1" in error_of(capsys, argv)


def test_stats_output_paths(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["stats", "--store", str(store), "--plot", str(tmp_path / "depth")])
    assert "give FILE.png" in line and not (tmp_path / "depth.png").exists()  # matplotlib would add .png
    assert "is a folder" in error_of(capsys, ["stats", "--store", str(store), "--json", str(tmp_path)])


# -- task selection and numeric options --------------------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    (["synth", "--domain", "python", "--limit", "0"], "--limit must be >= 1, got 0"),
    (["synth", "--domain", "python", "--limit", "-1"], "--limit must be >= 1, got -1"),
    (["synth", "--domain", "python", "--limit", "1", "--audit-rate", "2"], "--audit-rate must be in [0, 1]"),
    (["synth", "--domain", "python", "--limit", "1", "--min-confidence", "1.5"], "--min-confidence must be in [0, 1]"),
    (["synth", "--domain", "nosuch"], "no bundled suite for domain nosuch"),
    (["eval", "--domain", "nosuch"], "no bundled suite for domain nosuch"),
    (["eval", "--domain", "python", "--workers", "0"], "--workers must be >= 1, got 0"),
    (["eval", "--domain", "python", "--max-pending", "0"], "--max-pending must be >= 1, got 0"),
    (["eval", "--domain", "python", "--candidates", "/nonexistent/candidates"], "is not a folder"),
])
def test_out_of_range_and_unknown_selections(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             argv: list[str], fragment: str) -> None:
    if argv[0] == "synth":  # never the default out/ of the working folder, even where a check is missing
        argv = [*argv, "--store", str(tmp_path / "s.db"), "--out", str(tmp_path / "corpus"), "--no-export"]
    assert fragment in error_of(capsys, argv)


def test_a_domain_filter_that_selects_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ecot.tasks.suite import bundled_suite_path

    suite = str(bundled_suite_path("python"))
    assert "no task of domain rtl in the given suites" in error_of(capsys, ["eval", suite, "--domain", "rtl"])
    assert "no task of domain rtl" in error_of(capsys, ["synth", suite, "--domain", "rtl", "--no-export", "--store",
                                                          str(tmp_path / "s.db")])


def test_a_binary_file_given_as_a_suite(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    path.write_bytes(b"\xfa\xfb\x00binary")
    with pytest.raises(TaskFormatError, match="not UTF-8 text"):
        load_suite(path)


# -- import and serve --------------------------------------------------------------------------------
VE_FIXTURES = Path(__file__).parent / "fixtures" / "verilog_eval"


def test_import_force_never_deletes_a_file_that_is_not_a_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    precious = tmp_path / "thesis.tex"
    precious.write_text("keep me")
    line = error_of(capsys, ["import", "verilog-eval", str(VE_FIXTURES), str(precious), "--force"])
    assert "not an ecot JSONL suite" in line and precious.read_text() == "keep me"
    jsonl = tmp_path / "tasks.jsonl"
    assert main(["import", "verilog-eval", str(VE_FIXTURES), str(jsonl), "--jsonl"]) == 0
    assert main(["import", "verilog-eval", str(VE_FIXTURES), str(jsonl), "--jsonl", "--force"]) == 0  # a suite: replaced
    assert "--jsonl writes one file" in error_of(capsys, ["import", "verilog-eval", str(VE_FIXTURES), str(tmp_path), "--jsonl"])


def test_serve_port_out_of_range(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    replay.write_text('{"content": "x"}\n')
    with pytest.raises(EcotError, match="cannot listen on 127.0.0.1:99999"):
        create_server(ReplayResponder(replay), "127.0.0.1", 99999)


# -- world models ------------------------------------------------------------------------------------
def test_training_never_replaces_a_folder_that_is_not_a_model(store: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    line = error_of(capsys, ["icwm", "train", "--store", str(store), "--out", str(out), "--all-tasks"])
    assert "refusing to replace" in line and (out / "notes.txt").read_text() == "keep me"
    line = error_of(capsys, ["icwm", "train", "--store", str(store), "--out", str(store), "--all-tasks"])
    assert "refusing to replace" in line and store.is_file()


def damage(folder: Path, how: str) -> None:
    if how == "no state":
        (folder / "state.json").unlink()
    elif how == "truncated state":
        (folder / "state.json").write_text((folder / "state.json").read_text()[:500])
    elif how == "truncated weights":
        (folder / "weights.npz").write_bytes((folder / "weights.npz").read_bytes()[:300])
    elif how == "card not an object":
        (folder / "card.json").write_text("[1]")


@pytest.mark.parametrize("how", ["no state", "truncated state", "truncated weights", "card not an object"])
def test_a_damaged_model_folder_is_named(model_dir: Path, tmp_path: Path, how: str) -> None:
    folder = tmp_path / "model"
    shutil.copytree(model_dir, folder)
    damage(folder, how)
    with pytest.raises(EcotError, match=str(folder)):
        load_model(folder)


def test_model_options_are_checked(tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ecot.icwm.train import build_model

    with pytest.raises(EcotError, match="unknown option 'nosuch'"):
        build_model("fast", {"nosuch": 1})
    for value in (-1, 0, "abc"):
        with pytest.raises(EcotError, match="option 'c' must be a number > 0"):
            build_model("fast", {"c": value})
    with pytest.raises(EcotError, match="option 'steps' must be an integer >= 0"):
        build_model("lm", {"steps": -1})
    assert build_model("fast", {"c": 2, "max_iter": 100}).c == 2
    line = error_of(capsys, ["icwm", "eval", "--store", str(store), "--kind", "fast", "--folds", "2", "--opt", "zz=1",
                             "--report", str(tmp_path / "r")])
    assert "unknown option 'zz'" in line


def test_zero_folds_is_not_read_as_no_folds(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["icwm", "eval", "--store", str(store), "--kind", "fast", "--folds", "0",
                             "--report", str(tmp_path / "r"), "--speed-turns", "0"])
    assert "at least 2 folds, got 0" in line


def test_predict_names_a_missing_candidate(model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["icwm", "predict", "--model", str(model_dir), TASK, str(tmp_path / "none.py")])
    assert "candidate file" in line and "does not exist" in line


def test_a_bad_world_model_leaves_no_store_behind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "new.db"
    line = error_of(capsys, ["synth", "--domain", "python", "--limit", "1", "--store", str(store), "--no-export",
                             "--world-model", str(tmp_path / "no-model")])
    assert "not a world-model folder" in line and not store.exists()


@pytest.mark.parametrize("argv", [["icwm", "eval", "--store", "{store}", "--folds", "2", "--speed-turns", "-5"],
                                  ["serve", "--mode", "replay", "--latency-ms", "-5"]])
def test_negative_counts_and_delays_are_errors_not_zero(argv: list[str], store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, [a.format(store=store) for a in argv])
    assert "must be >= 0" in line


@pytest.mark.parametrize("command", [["stats"], ["export", "--out", "{tmp}/corpus"], ["icwm", "train", "--out", "{tmp}/m"]])
def test_reading_commands_do_not_turn_an_empty_file_into_a_store(command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    line = error_of(capsys, [*(a.format(tmp=tmp_path) for a in command), "--store", str(empty)])
    assert "is an empty file, not a trajectory store" in line and empty.stat().st_size == 0


@pytest.mark.parametrize("command", [["eval"], ["synth", "--no-export", "--store", "{tmp}/s.db"]])
def test_a_task_of_a_domain_no_backend_serves_is_named(command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = tmp_path / "suite" / "t1"
    task.mkdir(parents=True)
    (task / "task.toml").write_text('id = "x/t1"\ndomain = "cobol"\nprompt = "p"\n', encoding="utf-8")
    line = error_of(capsys, [command[0], str(tmp_path / "suite"), *(a.format(tmp=tmp_path) for a in command[1:])])
    assert "no backend serves domain 'cobol' in x/t1" in line and not (tmp_path / "s.db").exists()


def test_synth_names_a_bundle_its_backend_cannot_judge_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundled = bundled_suite_path("python") / "caesar"
    task = tmp_path / "suite" / "t1"
    shutil.copytree(bundled, task)
    (task / "tests.json").write_text("not json", encoding="utf-8")
    argv = ["synth", str(tmp_path / "suite"), "--no-export", "--store", str(tmp_path / "s.db")]
    assert main(argv) == 1
    assert "ended by Infra_Error: python/caesar#0" in " ".join(capsys.readouterr().out.split())


def test_a_mistyped_task_id_gets_the_closest_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(capsys, ["check", "python/fizbuzz", "--reference"]).endswith("(did you mean 'python/fizzbuzz'?)")
    assert error_of(capsys, ["check", "pyton/fizzbuzz", "--reference"]).endswith("(did you mean 'python/fizzbuzz'?)")
