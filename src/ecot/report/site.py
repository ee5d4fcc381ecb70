"""`build_report`: one pass over the store writes every trajectory page and the table's rows, feeds the
finished trajectories to `ecot.export.stats` for the overview, then writes the overview, the table and the
pages of fidelity and benchmark reports. Only what changed is rendered and written (ecot.report.writer).
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecot.core.task import Task
from ecot.core.trajectory import Trajectory
from ecot.export.fold import fold_trajectory
from ecot.export.stats import compute_stats, plot_stats, stats_json
from ecot.icwm.fidelity import audit_summary
from ecot.report import extras as extras_mod
from ecot.report.extras import Extra
from ecot.report.overview import Overview, disagreements, domain_rows, labels_per_round, run_views, usage_rows
from ecot.report.pages import PageJob, PageRenderer
from ecot.report.previews import Previews
from ecot.report.render import assets, render, renderer_version
from ecot.report.trajectory import status_of
from ecot.report.writer import SiteWriter, WriteCounts, key_of
from ecot.run.usage import PriceTable, run_models, usage_totals
from ecot.store import TrajectoryStore, check_run, require_store

log = logging.getLogger(__name__)

COLUMNS = ["id", "task", "domain", "run", "sample", "status", "label", "rounds", "labels", "diagnostic"]
DIAGNOSTIC_CHARS = 160  # of the final diagnostic, in the table and its search
DEPTH_FIGURE = "figures/depth.png"
DISAGREEMENTS_SHOWN = 200


@dataclass
class ReportOptions:
    store: Path
    out: Path
    run_id: int | None = None
    prices: PriceTable | None = None
    fidelity: list[Path] = field(default_factory=list)  # empty: look next to the store
    bench: list[Path] = field(default_factory=list)
    previews: int = 0  # trajectories drawn at most, by their domain's preview hook
    tasks: Mapping[str, Task] = field(default_factory=dict)  # the tasks previews are drawn for, by id
    jobs: int = 1  # processes rendering trajectory pages
    progress: Callable[[int, int], None] | None = None  # (trajectories done, total)
    warn: Callable[[str], None] = log.warning


@dataclass
class ReportResult:
    index: Path
    trajectories: int
    counts: WriteCounts
    seconds: float
    previews: int = 0
    extras: list[str] = field(default_factory=list)


def build_report(options: ReportOptions) -> ReportResult:
    start = time.perf_counter()
    require_store(options.store)
    found = find_extras(options)
    with TrajectoryStore(options.store) as store:
        check_run(store, options.run_id)  # bad input fails before the output folder is touched
        writer = SiteWriter(options.out)
        site = _Site(store, options, writer, found)
        try:
            site.build()
        except BaseException:
            writer.save()  # stopped midway (an error, ^C): the pages written so far count on the next run
            raise
    writer.finish()
    return ReportResult(
        options.out / "index.html", len(site.rows), writer.counts, time.perf_counter() - start,
        site.previews.shown if site.previews else 0, [e.slug for e in found],
    )


def find_extras(options: ReportOptions) -> list[Extra]:
    """Fidelity reports (default: below <store folder>/icwm) and bench reports (default: below <store folder>/bench)."""
    root = options.store.parent
    out = []
    for kind, given, name, folder in (
        ("fidelity", options.fidelity, extras_mod.FIDELITY_FILE, root / "icwm"),
        ("bench", options.bench, extras_mod.BENCH_FILE, root / "bench"),
    ):
        paths, strict = extras_mod.resolve(given, name, folder)
        out += extras_mod.load_all(kind, paths, strict, options.warn)
    return out


class _Site:
    def __init__(self, store: TrajectoryStore, options: ReportOptions, writer: SiteWriter, found: list[Extra]) -> None:
        self.store, self.options, self.writer, self.extras = store, options, writer, found
        self.runs = store.runs()
        self.run_identity = {int(r["id"]): (r["run_key"], r["created_at"]) for r in self.runs}
        self.audits = store.audits(options.run_id)
        self.audits_by: dict[tuple[int, str, int], dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
        for audit in self.audits:
            self.audits_by[(int(audit["run_id"]), audit["task_id"], int(audit["sample"]))][int(audit["idx"])].append(audit)
        self.total = store.counts(options.run_id)["trajectories"]
        self.rows: list[list[Any]] = []
        self.folded: dict[int | None, dict[str, Any] | None] = {}  # folded once, for the page and the statistics
        self.ids: dict[tuple[int, str, int], int] = {}
        self.previews = Previews(options.tasks, options.previews, writer) if options.previews else None
        self.version = renderer_version()
        self.common = {"nav": [(e.slug, _nav_label(e)) for e in found], "store_name": options.store.name}

    def build(self) -> None:
        for rel, data in assets().items():
            self.writer.write(rel, data)
        with PageRenderer(self.writer, self.common, self.options.jobs) as pages:
            stats = compute_stats(self._trajectory_pages(pages), fold=lambda traj: self.folded.pop(traj.id))
            pages.finish()
        figure = self._depth_figure(stats)
        self.writer.write("index.html", render("index.html", root="", **self.common, o=self._overview(stats), figure=figure,
                                               extras=self.extras, run_id=self.options.run_id, store=str(self.options.store)))
        self.writer.write("trajectories.html", render("trajectories.html", root="", **self.common, columns=COLUMNS,
                                                      data={"columns": COLUMNS, "rows": self.rows}, choices=self._choices()))
        for extra in self.extras:
            self._extra_page(extra)

    # -- trajectories -------------------------------------------------------------------------------

    def _trajectory_pages(self, pages: PageRenderer) -> Iterator[Trajectory]:
        """Write each trajectory's page and table row; yield the finished ones (what `ecot stats` counts)."""
        for done, traj in enumerate(self.store.iter_trajectories(run_id=self.options.run_id, finished_only=False), 1):
            assert traj.id is not None
            run = int(traj.provenance.get("run_id") or 0)
            self.ids[(run, traj.task_id, traj.sample)] = traj.id
            self.rows.append(_row(traj))
            sample = fold_trajectory(traj)
            self._trajectory_page(pages, traj, run, sample)
            if self.options.progress:
                self.options.progress(done, self.total)
            if traj.provenance.get("status") is not None:
                self.folded[traj.id] = sample
                yield traj

    def _trajectory_page(self, pages: PageRenderer, traj: Trajectory, run: int, sample: dict[str, Any] | None) -> None:
        audits = self.audits_by.get((run, traj.task_id, traj.sample), {})
        preview = self.previews.for_trajectory(traj) if self.previews else None
        rel = f"t/{traj.id}.html"
        key = key_of(self.version, self.run_identity.get(run), traj.id, status_of(traj), len(traj.turns),
                     sorted(a["id"] for rows in audits.values() for a in rows), preview)
        if not self.writer.fresh(rel, key):
            pages.add(PageJob(rel, key, self.writer.old_sha(rel), traj, sample, {k: list(v) for k, v in audits.items()}, preview))

    def _choices(self) -> dict[str, list[str]]:
        """The values each filter of the table offers."""
        index = {name: COLUMNS.index(name) for name in ("domain", "label", "rounds", "run", "status")}
        return {name: sorted({str(row[i]) for row in self.rows}, key=_natural) for name, i in index.items()}

    # -- overview -----------------------------------------------------------------------------------

    def _overview(self, stats: Mapping[str, Any]) -> Overview:
        domains, rounds = domain_rows(stats)
        usage = usage_totals(self.store.usage_rows(self.options.run_id), run_models(self.runs), self.options.prices)
        shown_runs = [r for r in self.runs if self.options.run_id in (None, r["id"])]
        overview = Overview(
            counts=self.store.counts(self.options.run_id),
            runs=run_views(shown_runs, self.store.run_activity(), self.store.invocations()),
            domains=domains,
            rounds=rounds,
            labels_per_round=labels_per_round(stats),
            usage=usage_rows(usage),
            usage_reasoning=usage.all.reasoning_tokens > 0,
        )
        if self.audits or any(str(r["config"].get("environment", "real")).startswith("icwm:") for r in shown_runs):
            overview.audits = audit_summary(self.options.store)
            overview.disagreements = disagreements(self.audits, self.ids)[:DISAGREEMENTS_SHOWN]
        return overview

    def _depth_figure(self, stats: Mapping[str, Any]) -> str | None:
        """`ecot stats --plot`'s figure, drawn again only when the statistics changed."""
        if not stats:
            return None
        key = key_of(self.version, stats_json(dict(stats)))
        if not self.writer.fresh(DEPTH_FIGURE, key):
            with tempfile.TemporaryDirectory(prefix="ecot-report-") as folder:
                path = plot_stats(dict(stats), Path(folder) / "depth.png")
                self.writer.write(DEPTH_FIGURE, path.read_bytes(), key)
        return DEPTH_FIGURE

    # -- fidelity and benchmark reports ------------------------------------------------------------

    def _extra_page(self, extra: Extra) -> None:
        folder = f"files/{extra.slug}"
        self.writer.write(f"{folder}/{extra.source.name}", extra.source.read_bytes())
        images = []
        for image in extra.images:
            images.append(f"{folder}/{image.name}")
            self.writer.write(images[-1], image.read_bytes())
        context = extras_mod.fidelity_view(extra.data) if extra.kind == "fidelity" else {}
        self.writer.write(f"{extra.slug}.html", render(
            "extra.html", root="", **self.common, extra=extra, images=images, raw=f"{folder}/{extra.source.name}",
            view=context, blocks=extras_mod.blocks(extras_mod.remainder(extra), ""),
        ))


def _row(traj: Trajectory) -> list[Any]:
    final = traj.final
    diagnostic = final.outcome.diagnostic if final else ""
    return [
        traj.id, traj.task_id, traj.domain, traj.provenance.get("run_id"), traj.sample, status_of(traj),
        final.outcome.label if final else "-", max(len(traj.turns) - 1, 0), " > ".join(traj.labels),
        diagnostic[:DIAGNOSTIC_CHARS],
    ]


def _natural(value: str) -> tuple[int, int, str]:
    return (0, int(value), "") if value.isdigit() else (1, 0, value)


def _nav_label(extra: Extra) -> str:
    return ("World model " if extra.kind == "fidelity" else "Benchmark ") + extra.slug.rsplit("-", 1)[-1]
