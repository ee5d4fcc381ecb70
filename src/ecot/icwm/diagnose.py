"""Diagnostics for the fast world model: retrieve the nearest known one, adapt it to the candidate.

Every training example leaves an exemplar: its label, diagnostic, log head and metrics, the change
that caused them (the responsible hunk: the one the diagnostic's line number points at, else the
first), and the identifiers that play a role in that change. For a new candidate the index finds,
among exemplars of the predicted label in the same domain, the one whose change looks most alike
(cosine over hunk features; an exemplar of the same task wins ties and carries its task's metrics),
then rewrites its line numbers and identifiers into the candidate's coordinates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ecot.core.outcome import BULKY_METRICS, Metric
from ecot.core.task import Task
from ecot.icwm.base import remember
from ecot.icwm.features import IDENT, Diff, Hunk, Vocabulary, task_names

LOG_HEAD = 12  # log lines kept with an exemplar
CACHE = 8192  # remembered searches (the same kind of change recurs across samples)
SAME_TASK_BONUS = 0.25  # in units of cosine similarity
LINE_REACH = 3  # a number within this many lines of the change is taken to point at it
_LOCATION = re.compile(r"(?:(?<=[\w.]):(\d+)(?=[:\s,)]|$))|(?:\bline (\d+))")
TIME_SUFFIXES = ("_s", "_ms")


@dataclass(frozen=True)
class Anchor:
    """Where a change sits and which identifiers it involves, by role."""

    line: int = 0
    roles: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def role(self, name: str) -> tuple[str, ...]:
        for role, words in self.roles:
            if role == name:
                return words
        return ()


@dataclass(frozen=True)
class Exemplar:
    task_id: str
    label: str
    diagnostic: str
    log: str
    metrics: Mapping[str, Metric]
    anchor: Anchor


def main_name(task: Task, vocab: Vocabulary) -> str:
    """The first identifier of the reference that is not common to the domain: the module/function name."""
    return _main_name(task, vocab.common.get(task.domain, frozenset()))


@lru_cache(maxsize=1024)
def _main_name(task: Task, common: frozenset[str]) -> str:
    declared, _ = task_names(task)
    words: list[str] = IDENT.findall(task.reference or "")
    for word in words:
        if word in declared and word not in common:
            return word
    return ""


@lru_cache(maxsize=1024)
def _reference_lines(reference: str) -> tuple[str, ...]:
    return tuple(reference.splitlines())


def anchor(hunk: Hunk | None, task: Task, vocab: Vocabulary) -> Anchor:
    if hunk is None:
        return Anchor(0, (("main", (main_name(task, vocab),)),))
    declared, _ = task_names(task)
    new = tuple(t.text for t in hunk.new if IDENT.fullmatch(t.text) and t.text not in declared)
    old = tuple(t.text for t in hunk.old if IDENT.fullmatch(t.text))
    ref_lines = _reference_lines(task.reference or "")
    line_text = ref_lines[hunk.ref_line - 1] if 0 < hunk.ref_line <= len(ref_lines) else ""
    on_line = tuple(dict.fromkeys(w for w in IDENT.findall(line_text) if w in declared))
    roles = (("new", new), ("old", old), ("line", on_line), ("main", (main_name(task, vocab),)))
    return Anchor(hunk.line, roles)


def responsible_by_text(d: Diff, diagnostic: str) -> Hunk | None:
    """For a training example: the hunk nearest the first line the diagnostic names, else the first hunk."""
    if not d.hunks:
        return None
    lines = [int(a or b) for a, b in _LOCATION.findall(diagnostic)]
    if not lines:
        return d.hunks[0]
    return min(d.hunks, key=lambda h: abs(h.line - lines[0]))


def query_features(found: Mapping[str, int] | None) -> dict[str, float]:
    """The search key of a change (its hunk description), or of an unchanged candidate."""
    if found is None:
        return {"same": 1.0}
    return {k: float(v) for k, v in found.items()}


@dataclass
class _Group:
    exemplars: list[Exemplar]
    matrix: Any  # scipy CSR, L2-normalized rows
    by_task: dict[str, np.ndarray]  # rows of each task


@dataclass
class DiagnosticIndex:
    """Exemplars grouped by (domain, label), with L2-normalized sparse hunk-feature rows for cosine search."""

    vocabulary: dict[str, int] = field(default_factory=dict)
    groups: dict[tuple[str, str], _Group] = field(default_factory=dict)
    _cache: dict[tuple[Any, ...], Exemplar | None] = field(default_factory=dict)

    def build(self, rows: list[tuple[str, Exemplar, dict[str, float]]]) -> None:
        from scipy.sparse import csr_matrix

        self._cache.clear()
        for _, _, feats in rows:
            for name in feats:
                self.vocabulary.setdefault(name, len(self.vocabulary))
        grouped: dict[tuple[str, str], list[tuple[Exemplar, dict[str, float]]]] = {}
        for domain, exemplar, feats in rows:
            grouped.setdefault((domain, exemplar.label), []).append((exemplar, feats))
        for key, members in grouped.items():
            data, rows_at, cols = [], [], []
            for row, (_, feats) in enumerate(members):
                norm = max(float(np.sqrt(sum(v * v for v in feats.values()))), 1e-9)
                for name, value in feats.items():
                    data.append(value / norm)
                    rows_at.append(row)
                    cols.append(self.vocabulary[name])
            matrix = csr_matrix((data, (rows_at, cols)), shape=(len(members), len(self.vocabulary)), dtype=np.float32)
            by_task: dict[str, list[int]] = {}
            for row, (exemplar, _) in enumerate(members):
                by_task.setdefault(exemplar.task_id, []).append(row)
            tasks = {t: np.array(r, dtype=np.int64) for t, r in by_task.items()}
            self.groups[key] = _Group([m[0] for m in members], matrix, tasks)

    def nearest(self, domain: str, label: str, task_id: str, feats: Mapping[str, float]) -> Exemplar | None:
        key = (domain, label, task_id, tuple(sorted(feats.items())))
        if key in self._cache:
            return self._cache[key]
        return remember(self._cache, key, self._search(domain, label, task_id, feats), CACHE)

    def _search(self, domain: str, label: str, task_id: str, feats: Mapping[str, float]) -> Exemplar | None:
        group = self.groups.get((domain, label))
        if group is None:
            return None
        query = np.zeros(len(self.vocabulary), dtype=np.float32)
        norm = max(sum(v * v for v in feats.values()) ** 0.5, 1e-9)
        for name, value in feats.items():
            index = self.vocabulary.get(name)
            if index is not None:
                query[index] = value / norm
        scores = group.matrix @ query
        same = group.by_task.get(task_id)
        if same is not None:
            scores[same] += SAME_TASK_BONUS
        return group.exemplars[int(np.argmax(scores))]


@dataclass(frozen=True)
class _Pieces:
    """A text cut into plain text, identifiers (kind 1) and line numbers after ':' or 'line ' (kind 2)."""

    pieces: tuple[tuple[int, str], ...]
    names: frozenset[str]
    lines: frozenset[int]


_PIECE = re.compile(r"(?P<loc>(?<=[\w.]):\d+(?=[:\s,)]|$)|\bline \d+)|(?P<id>(?<![\w$])[A-Za-z_][A-Za-z0-9_$]*)")

_LOCATION_PARTS = re.compile(r"(\D*)(\d+)")


@lru_cache(maxsize=16384)
def _cut(text: str) -> _Pieces:
    pieces: list[tuple[int, str]] = []
    names: set[str] = set()
    lines: set[int] = set()
    last = 0
    for m in _PIECE.finditer(text):
        pieces.append((0, text[last : m.start()]))
        if m.group("id"):
            pieces.append((1, m.group("id")))
            names.add(m.group("id"))
        else:
            head, number = _LOCATION_PARTS.match(m.group("loc")).groups()  # type: ignore[union-attr]
            pieces += [(0, head), (2, number)]
            lines.add(int(number))
        last = m.end()
    pieces.append((0, text[last:]))
    return _Pieces(tuple(p for p in pieces if p[1]), frozenset(names), frozenset(lines))


def adapt(text: str, source: Anchor, target: Anchor) -> str:
    """Rewrite an exemplar's text into the candidate's coordinates: line numbers near the change move
    with it, identifiers with a role in the change become the candidate's. Texts are cut once (cached),
    and one that mentions neither comes back untouched: this runs on every prediction."""
    cut = _cut(text)
    shift = 0
    if source.line and target.line and any(abs(n - source.line) <= LINE_REACH for n in cut.lines):
        shift = target.line - source.line
    mapping: dict[str, str] = {}
    for role in ("new", "old", "line", "main"):
        for old, new in zip(source.role(role), target.role(role)):
            if old and new and old != new and old in cut.names:
                mapping.setdefault(old, new)
    if not shift and not mapping:
        return text
    out = []
    for kind, piece in cut.pieces:
        if kind == 1:
            out.append(mapping.get(piece, piece))
        elif kind == 2 and abs(int(piece) - source.line) <= LINE_REACH:
            out.append(str(max(1, int(piece) + shift)))
        else:
            out.append(piece)
    return "".join(out)


def exemplar_metrics(metrics: Mapping[str, Metric]) -> dict[str, Metric]:
    return {k: v for k, v in metrics.items() if not k.endswith(TIME_SUFFIXES) and k not in BULKY_METRICS}


def log_head(log: str) -> str:
    return "\n".join(log.splitlines()[:LOG_HEAD])
