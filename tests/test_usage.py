"""Token accounting, budgets, price tables, Truncated turns and the store upgrade, on real SQLite stores."""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from ecot.cli import stats as stats_cli
from ecot.core.errors import EcotError
from ecot.core.outcome import TRUNCATED, Outcome, truncated
from ecot.core.task import Task
from ecot.core.trajectory import Turn
from ecot.generators.openai_chat import split_usage
from ecot.icwm.dataset import load_dataset
from ecot.run.control import MESSAGE_OVERHEAD, Budget, BudgetExhausted, RunControl, StopKind, prompt_bound
from ecot.run.observation import render
from ecot.run.usage import Price, load_prices, run_models, usage_totals
from ecot.store import MIGRATIONS, TrajectoryStore, apply_migrations

RTL = Task(id="rtl/adder", domain="rtl", prompt="Write an adder.", reference="module adder; endmodule\n")
PROMPT = [{"role": "user", "content": "Write an adder."}]


def turn(index: int, label: str, prompt: int, completion: int, code: str | None = "module adder; endmodule\n") -> Turn:
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    finish = "length" if label == TRUNCATED else "stop"
    return Turn(index, "r", code, "raw", Outcome(label, "d"), usage=usage, finish_reason=finish)


def fill(store: TrajectoryStore) -> tuple[int, int]:
    """Two runs: run 1 (model m1) rtl+python, one Truncated turn; run 2 (model m2) one unfinished rtl turn."""
    first = store.begin_run({"generator": {"model": "m1"}})
    second = store.begin_run({"generator": {"model": "m2"}})
    rtl = store.trajectory(first, "rtl/adder", "rtl", 0, PROMPT, {})
    for t in (turn(0, TRUNCATED, 100, 50), turn(1, "Syntax_Error", 200, 40), turn(2, "Pass", 300, 30)):
        store.append_turn(rtl, t)
    store.finish(rtl, "passed")
    py = store.trajectory(first, "python/sum", "python", 0, PROMPT, {})
    store.append_turn(py, turn(0, "Pass", 10, 5))
    store.finish(py, "passed")
    open_one = store.trajectory(second, "rtl/adder", "rtl", 0, PROMPT, {})
    store.append_turn(open_one, turn(0, "Syntax_Error", 1000, 1000))  # unfinished: its tokens still count
    return first, second


def test_usage_totals_per_run_domain_and_round_with_prices(tmp_path: Path) -> None:
    prices_file = tmp_path / "prices.toml"
    prices_file.write_text('["m1"]\ninput = 1.0\noutput = 2.0\n["*"]\ninput = 0.5\noutput = 0.5\n')
    prices = load_prices(prices_file)
    with TrajectoryStore(tmp_path / "s.db") as store:
        first, second = fill(store)
        totals = usage_totals(store.usage_rows(), run_models(store.runs()), prices)
        only_first = usage_totals(store.usage_rows(first), run_models(store.runs()))
    assert (totals.all.turns, totals.all.truncated, totals.all.prompt_tokens, totals.all.completion_tokens) == (5, 1, 1610, 1125)
    assert totals.all.total_tokens == 1610 + 1125
    assert totals.runs[first].total_tokens == 735 and totals.runs[second].total_tokens == 2000
    assert totals.domains["python"].total_tokens == 15 and totals.domains["rtl"].truncated == 1
    assert [totals.rounds[r].turns for r in (0, 1, 2)] == [3, 1, 1]
    assert totals.runs[first].usd == pytest.approx((610 * 1.0 + 125 * 2.0) / 1e6)
    assert totals.runs[second].usd == pytest.approx(2000 * 0.5 / 1e6)  # priced by the "*" entry
    assert only_first.all.total_tokens == 735 and only_first.all.usd is None  # no price table: no cost


def test_price_table_errors_name_the_file_and_model(tmp_path: Path) -> None:
    bad = tmp_path / "p.toml"
    for text, fragment in (('["m"]\ninput = -1\n', "input must be a number"), ('["m"]\ncost = 1\n', "only 'input' and 'output'"), ("x = [", "not valid TOML"), ("", "names no model")):
        bad.write_text(text)
        with pytest.raises(EcotError, match=fragment):
            load_prices(bad)
    with pytest.raises(EcotError, match="cannot read"):
        load_prices(tmp_path / "missing.toml")


def test_a_request_waits_for_room_and_the_run_stops_when_none_is_left() -> None:
    async def scenario() -> RunControl:
        control = RunControl(Budget(tokens=1000), spent={"total_tokens": 400})
        first = await control.reserve(400)  # 400 spent + 400 held
        waiting = asyncio.ensure_future(control.reserve(400))  # 1,200 > 1,000: waits for the first to end
        await asyncio.sleep(0.01)
        assert not waiting.done()
        control.charge({"prompt_tokens": 100, "completion_tokens": 50}, first)  # it used 150 of its 400
        second = await waiting  # 550 + 400 fits now
        third = asyncio.ensure_future(control.reserve(500))  # 550 + 400 + 500 does not: waits
        await asyncio.sleep(0.01)
        control.release(second)  # its request failed: nothing spent, nothing in flight, 500 still does not fit
        with pytest.raises(BudgetExhausted, match="550 of 1,000 tokens used; the smallest request left could need up to 500"):
            await third
        control.release(await control.reserve(450))  # a smaller request of another trajectory still fits
        with pytest.raises(BudgetExhausted):
            await control.reserve(451)
        return control

    control = asyncio.run(scenario())
    assert control.budget_hit and control.tokens == 550 and control.reserved_tokens == 0
    stop = control.stopped
    assert stop is not None and stop.kind == StopKind.BUDGET and "--budget-tokens" in stop.rerun
    assert stop.detail == "token budget: 550 of 1,000 tokens used; the smallest request left could need up to 451"


def test_a_shared_hold_is_given_back_share_by_share_and_cost_budgets_count_dollars() -> None:
    async def scenario() -> None:
        control = RunControl(Budget(tokens=100))
        hold = await control.reserve(90, shares=3)
        control.charge({"total_tokens": 10}, hold)
        control.release(hold)
        assert control.reserved_tokens == 30 and control.tokens == 10
        control.charge({"total_tokens": 20}, hold)
        assert control.reserved_tokens == 0 and control.tokens == 30
        cost = RunControl(Budget(usd=0.01, price=Price(input=1000.0, output=0.0)))
        cost.charge({"prompt_tokens": 9})  # $0.009
        held = await cost.reserve(0, usd=0.001)  # fits exactly
        refused = asyncio.ensure_future(cost.reserve(0, usd=0.002))  # waits for the request in flight
        await asyncio.sleep(0.01)
        cost.release(held)
        with pytest.raises(BudgetExhausted, match=r"cost budget: \$0.0090 of \$0.0100 used"):
            await refused
        dollars = RunControl(Budget(usd=1.0, price=Price(input=1.0, output=1.0)))
        first, second = await dollars.reserve(0, usd=0.1), await dollars.reserve(0, usd=0.2)
        dollars.release(first)
        dollars.release(second)  # 0.1 + 0.2 - 0.1 - 0.2 is not 0.0 in floats: nothing is in flight all the same
        with pytest.raises(BudgetExhausted):
            await asyncio.wait_for(dollars.reserve(0, usd=5.0), 2)

    asyncio.run(scenario())
    with pytest.raises(EcotError, match="--prices"):
        Budget(usd=1.0)
    stopped = RunControl()
    stopped.stop("endpoint gone", StopKind.ENDPOINT)
    with pytest.raises(BudgetExhausted, match="endpoint gone"):
        stopped.check()
    assert not stopped.budget_hit and "once the endpoint answers" in (stopped.stopped.rerun if stopped.stopped else "")


def test_the_prompt_bound_is_the_last_request_plus_the_new_observation_in_bytes() -> None:
    first = [{"role": "system", "content": "é" * 10}, {"role": "user", "content": "abc"}]
    assert prompt_bound(first, []) == (20 + MESSAGE_OVERHEAD) + (3 + MESSAGE_OVERHEAD) + MESSAGE_OVERHEAD
    shared = Turn(0, "", None, "raw", Outcome("No_Code", "d"), usage={"prompt_tokens": 7, "completion_tokens": 30, "n": 3})
    later = [*first, {"role": "assistant", "content": "raw"}, {"role": "user", "content": "x" * 40}]
    # the n=3 request's prompt was 3 x 7 (+ rounding), its answer 30, then the observation's 40 bytes
    assert prompt_bound(later, [shared]) == 21 + 3 + 30 + MESSAGE_OVERHEAD + 40 + MESSAGE_OVERHEAD


def test_split_usage_keeps_the_sums_exact() -> None:
    usage = {"prompt_tokens": 101, "completion_tokens": 250, "total_tokens": 351}
    shares = split_usage(usage, ["length", "stop", "stop", "length"], max_tokens=100)
    assert [s["completion_tokens"] for s in shares] == [100, 25, 25, 100]
    assert sum(s["prompt_tokens"] for s in shares) == 101 and sum(s["total_tokens"] for s in shares) == 351
    assert all(s["n"] == 4 for s in shares)
    uneven = split_usage({"prompt_tokens": 10, "completion_tokens": 7}, ["stop", "stop", "length"], max_tokens=50)
    assert sum(s["completion_tokens"] for s in uneven) == 7  # the server counted fewer than max_tokens: even split


def test_truncated_turns_never_train_the_world_model(tmp_path: Path) -> None:
    with TrajectoryStore(tmp_path / "s.db") as store:
        run = store.begin_run({"x": 1})
        traj = store.trajectory(run, RTL.id, "rtl", 0, PROMPT, {})
        store.append_turn(traj, turn(0, TRUNCATED, 10, 10))  # holds code, but it was cut off: not a code fault
        store.append_turn(traj, turn(1, "Syntax_Error", 10, 10))
        data = load_dataset(store, {RTL.id: RTL})
    assert [e.turn for e in data.examples] == [1]
    assert data.skipped[TRUNCATED] == 1


def test_truncated_observation_tells_the_generator_where_it_was_cut() -> None:
    text = render(truncated(512), RTL)
    assert "cut off at 512 tokens" in text and "nothing was run" in text
    assert "Diagnose the root cause" not in text  # not a code fault to debug


def test_old_store_gains_finish_reason_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    apply_migrations(conn, MIGRATIONS[:3])
    conn.execute("INSERT INTO runs VALUES (1, 'k', '{}', 't', '0.1.0', 'v')")
    conn.execute("INSERT INTO trajectories VALUES (1, 1, 'rtl/adder', 'rtl', 0, '[]', '{}', NULL, 't', NULL)")
    conn.execute(
        "INSERT INTO turns (trajectory_id, idx, reasoning, code, raw, label, diagnostic, log, metrics, tool_versions, "
        "wall_s, observation_source, usage, gen_s, created_at) VALUES (1, 0, 'r', NULL, 'raw', 'No_Code', 'd', '', '{}', "
        "'{}', 0, 'real', '{\"total_tokens\": 7}', 0, 't')"
    )
    conn.close()
    with TrajectoryStore(path) as store:
        assert store.applied_migrations == ["turn_finish_reason", "invocations"]
        (traj,) = store.iter_trajectories(finished_only=False)
        assert traj.turns[0].finish_reason is None and traj.turns[0].reasoning_content is None
        assert store.usage_rows()[0]["total_tokens"] == 7
        store.append_turn(traj, turn(1, TRUNCATED, 3, 4))
        (again,) = store.iter_trajectories(finished_only=False)
    assert again.turns[1].finish_reason == "length"


def test_stats_cli_prints_and_writes_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.db"
    with TrajectoryStore(path) as store:
        fill(store)
    prices = tmp_path / "p.toml"
    prices.write_text('["*"]\ninput = 1.0\noutput = 1.0\n')
    out = tmp_path / "stats.json"
    args = argparse.Namespace(store=path, run=None, json=out, plot=None, prices=prices)
    assert stats_cli.run(args) == 0
    printed = capsys.readouterr().out
    assert "Tokens and cost" in printed and "2,735" in printed and "Truncated" in printed
    usage = json.loads(out.read_text())["usage"]
    assert usage["all"]["truncated"] == 1 and usage["all"]["usd"] == pytest.approx(2735 / 1e6)
