"""What makes two `ecot synth` invocations the same run: what determines the data, not how it is reached.

A run's key digests the generator's identity (model and sampling options; not the endpoint's URL,
key, timeouts or concurrency), the content of every selected task, the prompts (its domains'
instruction files and a --system-prompt), the loop settings and the ecot release. So the same
server addressed as localhost or 127.0.0.1 resumes one run, while an edited task, a changed prompt
or another model starts a new one. The git commit is recorded with the run (`code_version`) but
not keyed: updating a checkout mid-run resumes instead of paying for every answer again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from ecot.core.task import Task
from ecot.run.router import prompt_files
from ecot.store.version import ecot_version


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def task_digest(task: Task) -> str:
    """sha256 of everything in a task: prompt, bundle files, reference, options, limits, tags."""
    return _digest(task.to_dict())


def suite_digest(tasks: Sequence[Task]) -> str:
    return _digest(sorted((t.id, task_digest(t)) for t in tasks))


def prompts_digest(domains: Iterable[str], system_prompt: str | None = None) -> str:
    """sha256 of the instruction files the router reads for these domains and the user's system prompt, if any."""
    files = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in prompt_files(domains).items()}
    return _digest({"files": files, "system_prompt": system_prompt})


def run_config(
    tasks: Sequence[Task],
    generator: Any,
    samples: int,
    max_rounds: int,
    system_prompt: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config stored with the run, identity its key digests). Extra settings are added to both by the caller."""
    shared = {
        "tasks": sorted(t.id for t in tasks),
        "suite_sha256": suite_digest(tasks),
        "prompts_sha256": prompts_digest({t.domain for t in tasks}, system_prompt),
        "samples": samples,
        "max_rounds": max_rounds,
        "environment": "real",
        "ecot_version": ecot_version(),
    }
    config = {**shared, "generator": generator.provenance()}
    identity = {**shared, "generator": generator.identity()}
    return config, identity
