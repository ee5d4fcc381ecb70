"""Rendering trajectory pages, in batches, here or in worker processes.

Highlighting code with Pygments is most of a report's cost (about 4 ms per page when every sample's
code differs, as an LLM's does), so with `jobs > 1` batches go to a pool of processes, each of which
renders and writes its pages itself and returns what the manifest records. The pool starts only
once a full batch is waiting: a small report, or a rerun with few changes, never pays for it. Worker
processes are started fresh (forkserver), not forked from this one, which may hold threads (a progress
bar) and an open SQLite connection.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ecot.core.trajectory import Trajectory
from ecot.report.render import render
from ecot.report.trajectory import PreviewView, build_view
from ecot.report.writer import SiteWriter, write_if_changed

BATCH = 64  # pages per task sent to a worker
IN_FLIGHT = 2  # batches queued per worker: enough to keep them busy, few enough to bound memory
MAX_JOBS = 8


def default_jobs() -> int:
    """One rendering process per core but one, which the reading, folding and statistics keep busy."""
    return max(min((os.cpu_count() or 1) - 1, MAX_JOBS), 1)


@dataclass
class PageJob:
    rel: str
    key: str
    old_sha: str | None
    traj: Trajectory
    sample: dict[str, Any] | None
    audits: dict[int, list[dict[str, Any]]]
    preview: PreviewView | None


def render_batch(out: Path, jobs: list[PageJob], common: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """Render and write each page; (rel, key, sha256, written) for the manifest."""
    done = []
    for job in jobs:
        preview = replace(job.preview, src=f"../{job.preview.src}") if job.preview else None
        view = build_view(job.traj, job.sample, job.audits, preview)
        html = render("trajectory.html", root="../", **common, t=view).encode("utf-8")
        sha, written = write_if_changed(out / job.rel, html, job.old_sha)
        done.append((job.rel, job.key, sha, written))
    return done


class PageRenderer:
    """Collects page jobs and renders them in batches (inline with jobs=1), recording each in the writer."""

    def __init__(self, writer: SiteWriter, common: dict[str, Any], jobs: int = 1) -> None:
        self.writer, self.common, self.jobs = writer, common, max(jobs, 1)
        self._batch: list[PageJob] = []
        self._pending: deque[Future[list[tuple[str, str, str, bool]]]] = deque()
        self._pool: ProcessPoolExecutor | None = None

    def add(self, job: PageJob) -> None:
        if self.jobs == 1:  # one at a time: each page is in the manifest as soon as it is on disk
            self._record(render_batch(self.writer.out, [job], self.common))
            return
        self._batch.append(job)
        if len(self._batch) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context)
        self._pending.append(self._pool.submit(render_batch, self.writer.out, batch, self.common))
        while len(self._pending) > IN_FLIGHT * self.jobs:
            self._record(self._pending.popleft().result())

    def _record(self, done: list[tuple[str, str, str, bool]]) -> None:
        for rel, key, sha, written in done:
            self.writer.record(rel, key, sha, written)

    def finish(self) -> None:
        """Render what is left and wait for every worker's pages."""
        self._flush()
        while self._pending:
            self._record(self._pending.popleft().result())
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> PageRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
