"""Previews for trajectory pages: the last attempt drawn next to the reference by its domain's preview
hook (`Domain.preview`; the cad domain draws the solids, the candidate running in the sandbox, as in an
evaluation).

Drawing takes seconds per candidate, so it is opt-in (`ecot report --previews N`: at most N
trajectories) and every PNG is kept in the report under a name derived from the task and the code:
a rerun reuses it, and samples that ended with the same code share one image.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ecot.core.domain import find_domain
from ecot.core.errors import ToolMissingError
from ecot.core.task import Task
from ecot.core.trajectory import Trajectory
from ecot.core.views import PreviewHook
from ecot.report.trajectory import PreviewView
from ecot.report.writer import SiteWriter, key_of
from ecot.run.identity import task_digest

log = logging.getLogger(__name__)
FOLDER = "previews"


class Previews:
    def __init__(self, tasks: Mapping[str, Task], limit: int, writer: SiteWriter) -> None:
        self.tasks, self.limit, self.writer = tasks, limit, writer
        self.shown = 0
        self.failed = 0
        self._hooks: dict[str, PreviewHook | None] = {}  # per domain; None: it has none, or cannot draw here
        self._drawn: set[str] = set()  # images this run wrote or kept: the next trajectory with the same code reuses them

    def for_trajectory(self, traj: Trajectory) -> PreviewView | None:
        """The trajectory's preview, drawn now if need be; None when its domain has no preview hook,
        the limit is reached, the task is unknown or nothing could be drawn."""
        code = next((t.code for t in reversed(traj.turns) if t.code), None)
        task = self.tasks.get(traj.task_id)
        hook = self._hook(traj.domain)
        if hook is None or code is None or task is None or self.shown >= self.limit:
            return None
        key = key_of(task_digest(task), code)
        rel = f"{FOLDER}/{traj.domain}/{key}.png"
        if rel not in self._drawn and not self.writer.fresh(rel, key):
            data = self._draw(hook, task, code)
            if data is None:
                return None
            self.writer.write(rel, data, key)
        self._drawn.add(rel)
        self.shown += 1
        return PreviewView(rel, hook.title, hook.caption)

    def _hook(self, domain: str) -> PreviewHook | None:
        if domain not in self._hooks:
            described = find_domain(domain)
            try:
                self._hooks[domain] = described.load_preview() if described is not None else None
            except (ImportError, AttributeError) as err:  # a plug-in's hook that does not resolve: no pictures
                log.warning("no %s previews: %s", domain, err)
                self._hooks[domain] = None
        return self._hooks[domain]

    def _draw(self, hook: PreviewHook, task: Task, code: str) -> bytes | None:
        with tempfile.TemporaryDirectory(prefix="ecot-report-preview-") as folder:
            try:
                shown = hook.draw(task, code, Path(folder))
            except ToolMissingError as err:  # e.g. CadQuery missing: no previews of the domain, the rest is unaffected
                log.warning("no %s previews: %s", task.domain, err)
                self._hooks[task.domain] = None
                return None
            except Exception as err:  # noqa: BLE001 - a failed drawing is a missing picture, not a failed report
                log.warning("no preview for %s: %s", task.id, err)
                self.failed += 1
                return None
            return shown.png.read_bytes() if shown.png is not None else None
