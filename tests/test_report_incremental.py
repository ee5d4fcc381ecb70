"""A rerun renders only what changed, a crash loses nothing, and only the report's own files are ever removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecot.core.errors import EcotError
from ecot.report import ReportOptions, build_report, pages, writer
from ecot.store import TrajectoryStore
from export_fixtures import trajectory
from report_fixtures import add, build_store, failed_trajectory


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.rglob("*") if p.is_file()}


def test_rerun_renders_only_what_changed(tmp_path: Path) -> None:
    ids = build_store(tmp_path / "ecot.db")
    options = ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "report")
    first = build_report(options)
    assert first.counts.written == len(snapshot(tmp_path / "report")) - 1  # every file but the manifest
    before = snapshot(tmp_path / "report")
    again = build_report(options)
    assert again.counts.written == 0 and again.counts.kept == first.trajectories + 1  # pages + the figure
    assert snapshot(tmp_path / "report") == before
    with TrajectoryStore(tmp_path / "ecot.db") as store:  # the store grows: a new trajectory, the pending one ends
        new = add(store, 1, trajectory("python/grown"), "passed")
        pending = next(t for t in store.iter_trajectories(finished_only=False) if t.id == ids["unfinished"])
        store.append_turn(pending, failed_trajectory().turns[1])
        store.finish(pending, "failed")
    grown = build_report(options)
    after = snapshot(tmp_path / "report")
    changed = {rel for rel in after if rel not in before or after[rel] != before[rel]}
    assert changed == {f"t/{new.id}.html", f"t/{ids['unfinished']}.html", "index.html", "trajectories.html",
                       "figures/depth.png", writer.MANIFEST}
    assert grown.counts.written == len(changed) - 1 and grown.counts.kept == first.trajectories - 1  # all pages but the pending one's


def test_a_crash_loses_no_finished_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_store(tmp_path / "ecot.db", python_samples=6)
    options = ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "report")
    real_render, calls = pages.render, []

    def crashing(template: str, **context: object) -> str:
        calls.append(template)
        if len(calls) == 6:
            raise KeyboardInterrupt  # killed mid-run
        return real_render(template, **context)

    monkeypatch.setattr(pages, "render", crashing)
    with pytest.raises(KeyboardInterrupt):
        build_report(options)
    monkeypatch.setattr(pages, "render", real_render)
    resumed = build_report(options)
    assert resumed.counts.kept == 5  # the pages finished before the crash are not rendered again
    clean = build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "clean"))
    assert {k: v[1] for k, v in snapshot(tmp_path / "report").items() if k != writer.MANIFEST} == \
           {k: v[1] for k, v in snapshot(tmp_path / "clean").items() if k != writer.MANIFEST}
    assert clean.counts.written == resumed.counts.written + resumed.counts.kept + resumed.counts.unchanged
    assert not list((tmp_path / "report").rglob("*.tmp"))


def test_a_killed_writer_keeps_what_it_checkpointed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "CHECKPOINT", 2)
    first = writer.SiteWriter(tmp_path)
    for n in range(5):
        first.write(f"t/{n}.html", f"page {n}", key=f"k{n}")
    # killed here (no save, no finish): the manifest holds what the last checkpoint saw
    second = writer.SiteWriter(tmp_path)
    assert [second.fresh(f"t/{n}.html", f"k{n}") for n in range(5)] == [True, True, True, True, False]
    writer.SiteWriter(tmp_path / "new").write("index.html", "x")
    writer.SiteWriter(tmp_path / "new")  # killed before any checkpoint: still a report folder, not refused


def test_only_the_reports_own_files_are_removed(tmp_path: Path) -> None:
    ids = build_store(tmp_path / "ecot.db")
    out = tmp_path / "report"
    build_report(ReportOptions(store=tmp_path / "ecot.db", out=out))
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    narrowed = build_report(ReportOptions(store=tmp_path / "ecot.db", out=out, run_id=2))
    assert narrowed.trajectories == 1 and narrowed.counts.removed == len(ids) - 1
    assert sorted(p.name for p in (out / "t").iterdir()) == [f"{ids['world']}.html"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_folder_that_is_not_a_report_is_refused(tmp_path: Path) -> None:
    build_store(tmp_path / "ecot.db")
    with pytest.raises(EcotError, match="not empty and holds no ecot report"):
        build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path))  # the store's own folder
    assert not (tmp_path / "index.html").exists() and not (tmp_path / writer.MANIFEST).exists()


def test_worker_processes_write_the_same_report(tmp_path: Path) -> None:
    build_store(tmp_path / "ecot.db", python_samples=pages.BATCH + 6)  # more than one batch: the pool starts
    one = build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "one"))
    two = build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "two", jobs=2))
    assert one.counts == two.counts and one.trajectories > pages.BATCH
    assert {k: v[1] for k, v in snapshot(tmp_path / "one").items()} == {k: v[1] for k, v in snapshot(tmp_path / "two").items()}
    again = build_report(ReportOptions(store=tmp_path / "ecot.db", out=tmp_path / "two", jobs=2))
    assert again.counts.written == 0 and again.counts.kept == one.trajectories + 1
