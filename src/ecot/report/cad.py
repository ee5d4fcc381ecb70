"""CAD previews for trajectory pages: the last attempt's solid next to the reference, drawn by
`ecot.domains.cad.render.preview` (the candidate runs in the sandbox, as in an evaluation).

Rendering takes seconds per part, so it is opt-in (`ecot report --cad-previews N`: at most N
trajectories) and every PNG is kept in the report under a name derived from the task and the code:
a rerun reuses it, and samples that ended with the same code share one image.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ecot.core.errors import EcotError
from ecot.core.task import Task
from ecot.core.trajectory import Trajectory
from ecot.domains import get_backend
from ecot.domains.cad.render import preview
from ecot.report.writer import SiteWriter, key_of
from ecot.run.identity import task_digest

log = logging.getLogger(__name__)
FOLDER = "cad"


class CadPreviews:
    def __init__(self, tasks: Mapping[str, Task], limit: int, writer: SiteWriter) -> None:
        self.tasks, self.limit, self.writer = tasks, limit, writer
        self.shown = 0
        self.failed = 0
        self._backend: Any = None
        self._drawn: set[str] = set()  # images this run wrote or kept: the next trajectory with the same code reuses them

    def for_trajectory(self, traj: Trajectory) -> str | None:
        """The report-relative path of the trajectory's preview PNG, rendered now if need be; None when
        it is not a CAD trajectory, the limit is reached, the task is unknown or nothing could be drawn."""
        code = next((t.code for t in reversed(traj.turns) if t.code), None)
        task = self.tasks.get(traj.task_id)
        if traj.domain != "cad" or code is None or task is None or self.shown >= self.limit:
            return None
        key = key_of(task_digest(task), code)
        rel = f"{FOLDER}/{key}.png"
        if rel not in self._drawn and not self.writer.fresh(rel, key):
            data = self._render(task, code)
            if data is None:
                return None
            self.writer.write(rel, data, key)
        self._drawn.add(rel)
        self.shown += 1
        return rel

    def _render(self, task: Task, code: str) -> bytes | None:
        if self._backend is None:
            try:
                self._backend = get_backend("cad")
            except EcotError as err:  # CadQuery missing: no previews, the rest of the report is unaffected
                log.warning("no CAD previews: %s", err)
                self.limit = 0
                return None
        with tempfile.TemporaryDirectory(prefix="ecot-report-cad-") as folder:
            try:
                shown = preview(task, code, Path(folder), backend=self._backend)
            except Exception as err:  # noqa: BLE001 - a failed drawing is a missing picture, not a failed report
                log.warning("no CAD preview for %s: %s", task.id, err)
                self.failed += 1
                return None
            return shown.png.read_bytes() if shown.png is not None else None
