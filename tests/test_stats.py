"""Depth statistics on a small store whose numbers are known by construction."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from ecot.cli import stats as stats_cli
from ecot.core.outcome import Outcome
from ecot.core.trajectory import Turn
from ecot.export.stats import ALL, Spread, compute_stats, plot_stats, quantile
from ecot.store import TrajectoryStore

# A single-turn pass folds to "<reasoning>" + this suffix; its answer is the code in a 14-character fence.
PASS_SUFFIX = "\n\nI run it through the toolchain. The toolchain reports Pass: ok"
PYTHON_FENCE = len("```python\n\n```")


def turn(index: int, label: str, code: str = "pass\n", reasoning: str = "I try.") -> Turn:
    return Turn(index, reasoning, code, code, Outcome(label, "ok" if label == "Pass" else "bad"))


def build_store(path: Path) -> None:
    python = [[turn(0, "Pass", "x" * (10 * n) + "\n", "a" * (100 * n))] for n in (1, 2, 3, 4)]
    python.append([turn(0, "Wrong_Answer")])
    rtl = [
        [turn(0, "Syntax_Error"), turn(1, "Simulation_Mismatch"), turn(2, "Pass")],
        [turn(0, "Lint_Error"), turn(1, "Pass")],
        [turn(0, "Syntax_Error"), turn(1, "Syntax_Error")],
    ]
    with TrajectoryStore(path) as store:
        run = store.begin_run({"stats": True})
        for domain, groups in (("python", python), ("rtl", rtl)):
            for n, turns in enumerate(groups):
                traj = store.trajectory(run, f"{domain}/{n}", domain, 0, [{"role": "user", "content": "go"}], {})
                for t in turns:
                    store.append_turn(traj, t)
                store.finish(traj, "passed" if traj.passed else "failed")
        unfinished = store.trajectory(run, "rtl/open", "rtl", 0, [], {})
        store.append_turn(unfinished, turn(0, "Timeout"))  # in progress: never counted


@pytest.fixture
def stats(tmp_path: Path):
    build_store(tmp_path / "s.db")
    with TrajectoryStore(tmp_path / "s.db") as store:
        return compute_stats(store.iter_trajectories())


def test_quantiles_interpolate_linearly() -> None:
    assert [quantile([1, 2, 3, 4], q) for q in (0.25, 0.5, 0.75)] == [1.75, 2.5, 3.25]
    assert quantile([7], 0.75) == 7.0
    assert Spread.of([]) is None


def test_known_store_numbers(stats) -> None:  # type: ignore[no-untyped-def]
    assert list(stats) == ["python", "rtl", ALL]
    py, rtl, total = stats["python"], stats["rtl"], stats[ALL]
    assert (py.finished, py.passed, py.pass_rate) == (5, 4, 0.8)
    assert Spread.of(py.thinking_chars) == Spread(250 + len(PASS_SUFFIX), 175 + len(PASS_SUFFIX), 325 + len(PASS_SUFFIX))
    assert Spread.of(py.answer_chars) == Spread(25 + PYTHON_FENCE, 17.5 + PYTHON_FENCE, 32.5 + PYTHON_FENCE)
    assert (rtl.finished, rtl.passed) == (3, 2) and rtl.pass_rate == pytest.approx(2 / 3)
    assert Spread.of(rtl.turns_to_pass) == Spread(2.5, 2.25, 2.75)
    assert Spread.of(total.turns_to_pass) == Spread(1.0, 1.0, 1.75)
    assert total.labels_per_round == [
        {"Pass": 4, "Wrong_Answer": 1, "Syntax_Error": 2, "Lint_Error": 1},
        {"Simulation_Mismatch": 1, "Pass": 1, "Syntax_Error": 1},
        {"Pass": 1},
    ]
    data = total.to_dict()
    assert data["turns_to_pass_histogram"] == {"1": 4, "2": 1, "3": 1}
    assert data["thinking_chars"]["median"] == Spread.of(total.thinking_chars).median  # type: ignore[union-attr]


def test_plot_is_written(stats, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    png = plot_stats(stats, tmp_path / "fig" / "depth.png")
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    assert plot_stats({}, tmp_path / "empty.png").stat().st_size > 0  # an empty store still plots


def test_cli_stats_prints_and_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_store(tmp_path / "s.db")
    parser = argparse.ArgumentParser()
    stats_cli.add_arguments(parser)
    args = parser.parse_args(
        ["--store", str(tmp_path / "s.db"), "--run", "1", "--json", str(tmp_path / "s.json"), "--plot", str(tmp_path / "s.png")]
    )
    assert stats_cli.run(args) == 0
    printed = capsys.readouterr().out
    assert "python" in printed and "80%" in printed and "Syntax_Error 2" in printed
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["run_id"] == 1 and data["domains"]["python"]["pass_rate"] == 0.8
    assert data["domains"]["rtl"]["turns_to_pass"] == {"median": 2.5, "p25": 2.25, "p75": 2.75}
    assert (tmp_path / "s.png").stat().st_size > 10_000


def test_stats_of_a_store_without_a_finished_trajectory_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ecot.cli.main import main

    path = tmp_path / "s.db"
    with TrajectoryStore(path) as store:
        run = store.begin_run({"stats": "unfinished"})
        assert main(["stats", "--store", str(path)]) == 0
        assert "no trajectory in this store yet" in capsys.readouterr().out
        traj = store.trajectory(run, "rtl/a", "rtl", 0, [{"role": "user", "content": "go"}], {})
        store.append_turn(traj, turn(0, "Syntax_Error"))  # a run stopped by its budget after one turn
    assert main(["stats", "--store", str(path), "--plot", str(tmp_path / "f.png")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no finished trajectory: 1 begun, 1 turns stored, none finished" in out and "resumes it" in out
    assert "depth statistics (finished" not in out and f"no figure written to {tmp_path / 'f.png'}" in out
    assert not (tmp_path / "f.png").exists()
