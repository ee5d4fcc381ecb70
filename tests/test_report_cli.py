"""`ecot report` on the command line: the report's path on success, one `ecot: error:` line (exit 2) on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecot.cli.main import main
from report_fixtures import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "ecot.db"
    build_store(path)
    return path


def test_writes_next_to_the_store_and_prints_the_path(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    index = store.parent / "report" / "index.html"
    assert f"report: {index}" in out and index.is_file()
    assert "8 trajectories" in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--store", "{tmp}/missing.db"], "no trajectory store at"),
        (["--run", "9"], "has no run 9 (runs: 1, 2)"),
        (["--out", "{store}"], "exists and is not a folder"),
        (["--fidelity", "{tmp}/bad.json"], "cannot read the fidelity report"),
        (["--fidelity", "{tmp}/nothing"], "does not exist"),
        (["--bench", "{tmp}/list.json"], "a bench report is a JSON object, got list"),
        (["--previews", "-1"], "--previews must be >= 0"),
        (["--jobs", "0"], "--jobs must be >= 1"),
        (["--prices", "{tmp}/bad.json"], "price table"),
    ],
)
def test_bad_input_is_one_error_line(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    given = [a.format(tmp=tmp_path, store=store) for a in arguments]
    if "--store" not in given:
        given = ["--store", str(store), "--out", str(tmp_path / "out"), *given]
    assert main(["report", *given]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ecot: error: ") and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing written
