"""`ecot report` pages read as HTML: the overview's numbers are `ecot stats`' numbers, a trajectory page
shows every turn, and nothing from the store reaches a page unescaped or makes it fetch anything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ecot.export.fold import fold_trajectory
from ecot.export.stats import compute_stats
from ecot.report import ReportOptions, ReportResult, build_report
from ecot.store import TrajectoryStore
from report_fixtures import HOSTILE_TASK, XSS, build_store, write_bench, write_fidelity
from report_html import Page, page


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int], ReportResult]:
    folder = tmp_path_factory.mktemp("report")
    ids = build_store(folder / "ecot.db")
    write_fidelity(folder / "icwm" / "report")
    write_bench(folder / "bench" / "smol")
    return folder, ids, build_report(ReportOptions(store=folder / "ecot.db", out=folder / "report"))


def test_overview_numbers_are_those_of_ecot_stats(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, _, result = built
    with TrajectoryStore(folder / "ecot.db") as store:
        stats = compute_stats(store.iter_trajectories(finished_only=True))
        counts = store.counts()
    overview = page(result.index)
    rows = {row[0]: row for row in overview.body_rows("domain-table")}
    assert set(rows) == set(stats) == {"python", "rtl", "all"}
    for name, s in stats.items():
        assert rows[name][1:4] == [str(s.finished), str(s.passed), f"{100 * s.pass_rate:.1f}%"]
    assert rows["rtl"][1:4] == ["3", "1", "33.3%"]  # failed, hostile (passed), world-model Pass (not real); one unfinished
    labels = {row[0]: [int(c) for c in row[1:]] for row in overview.body_rows("label-table")}
    for round_index, counter in enumerate(stats["all"].labels_per_round):
        for label, count in counter.items():
            assert labels[label][round_index] == count
    assert f"{counts['trajectories']} trajectories" in " ".join(overview.text.split())
    # passed by the end of round 1: python 4 of 4 (one at once), rtl 1 of 3 (the hostile one)
    by_round = {row[0]: row[1:] for row in overview.body_rows("round-table")}
    assert by_round["python"][:2] == ["25.0%", "100.0%"] and by_round["rtl"][:2] == ["0.0%", "33.3%"]
    assert (folder / "report" / "figures" / "depth.png").read_bytes().startswith(b"\x89PNG")


def test_trajectory_page_shows_turns_diff_verdict_trace_and_sample(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, ids, _ = built
    shown = page(folder / "report" / "t" / f"{ids['python0']}.html")
    text = shown.text
    assert "Attempt 1" in text and "Attempt 2" in text and "Wrong_Answer" in text
    assert "-    return sorted(a).index(x) - 1 + 0" in text and "+    return sorted(a).index(x) + 0" in text
    assert [row[1] for row in shown.body_rows("trace-1")] == ["lower_bound:1", "lower_bound:2", "lower_bound:2"]
    assert shown.body_rows("trace-1")[-1][-1] == "-> 2"
    with TrajectoryStore(folder / "ecot.db") as store:
        traj = next(t for t in store.iter_trajectories() if t.id == ids["python0"])
    sample = fold_trajectory(traj)
    assert sample is not None and sample["messages"][-1]["content"] in text  # the folded sample, verbatim


def test_pages_say_why_a_trajectory_has_no_sample(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, ids, _ = built
    reasons = {name: " ".join(page(folder / "report" / "t" / f"{ids[name]}.html").text.split())
               for name in ("failed", "unfinished", "world")}
    assert "the final turn did not pass (Syntax_Error)" in reasons["failed"]
    assert "not finished" in reasons["unfinished"]
    assert "came from icwm:fast, not from real execution" in reasons["world"]


def test_store_text_is_escaped_everywhere(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, ids, _ = built
    for path in (folder / "report").rglob("*.html"):
        raw = path.read_text(encoding="utf-8")
        assert "<script>alert" not in raw and "<img src=x" not in raw, path
        shown = Page(raw)
        assert not [attrs for _, attrs in shown.tags if any(name.startswith("on") for name in attrs)], path
        for attrs, text in shown.scripts:  # only our script file and the table's JSON
            assert attrs.get("src") == "assets/table.js" or attrs.get("type") == "application/json", path
            assert "</" not in text and "<script" not in text.lower()
    hostile = page(folder / "report" / "t" / f"{ids['hostile']}.html")
    assert XSS in hostile.text and HOSTILE_TASK in hostile.text  # shown as text
    rows = page(folder / "report" / "trajectories.html").table_data()["rows"]
    assert HOSTILE_TASK in [row[1] for row in rows]  # the JSON round-trips the exact value


def test_pages_fetch_nothing_from_the_network(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, _, _ = built
    for path in (folder / "report").rglob("*.html"):
        shown = page(path)
        policy = [a.get("content") or "" for t, a in shown.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert policy and "default-src 'none'" in policy[0], path
        for tag, attrs in shown.tags:
            for name in ("src", "href"):
                value = attrs.get(name)
                if value is not None:
                    assert not re.match(r"^([a-z][a-z0-9+.-]*:|//)", value, re.IGNORECASE), f"{path}: <{tag} {name}={value}>"
                    target = (path.parent / value.split("#")[0]) if value.split("#")[0] else path
                    assert target.is_file(), f"{path}: broken link {value}"


def test_fidelity_and_bench_reports_found_next_to_the_store(built: tuple[Path, dict[str, int], ReportResult]) -> None:
    folder, _, result = built
    assert result.extras == ["fidelity-1", "bench-1"]
    fidelity = page(folder / "report" / "fidelity-1.html")
    assert fidelity.body_rows("fidelity-domains")[0][:3] == ["rtl", "4", "75.0%"]
    assert XSS in fidelity.text
    bench = page(folder / "report" / "bench-1.html")
    assert "pass@5" in bench.text and "rtl/a" in bench.text
    assert (folder / "report" / "files" / "bench-1" / "bench.json").read_bytes() == (folder / "bench" / "smol" / "bench.json").read_bytes()
    links = [a.get("href") for t, a in page(result.index).tags if t == "a"]
    assert "fidelity-1.html" in links and "bench-1.html" in links


def test_an_empty_store_gives_an_empty_report(tmp_path: Path) -> None:
    TrajectoryStore(tmp_path / "ecot.db").close()
    result = build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "report"))
    assert result.trajectories == 0 and page(tmp_path / "report" / "trajectories.html").table_data()["rows"] == []
    assert "no finished trajectory" in page(result.index).text and not (tmp_path / "report" / "figures").exists()


def test_code_of_a_domain_no_longer_installed_is_plain_escaped_text() -> None:
    from ecot.report.highlight import highlight_domain

    html = str(highlight_domain("echo '<b>'\n", "uninstalled_plugin_domain"))
    assert "&lt;b&gt;" in html and "<b>" not in html
    assert "echo" in html
