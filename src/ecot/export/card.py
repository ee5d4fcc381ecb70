"""The dataset card (README.md) of an export: what is in it, where it came from, what was left out.

Counts per split and domain, outcome labels, correction rounds, lengths (tokens with the named
tokenizer, else characters of the completion), toolchain versions as the store recorded them,
the runs read, and the licence of each task source. The YAML header lets
`datasets.load_dataset(<export folder>)` find the splits.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ecot.export.sample import Sample
from ecot.export.split import SPLITS

# Task id prefix -> (source, licence). Bundled suites use the domain as prefix.
SOURCES = {"rtllm": ("RTLLM", "MIT"), "kernelbench": ("KernelBench", "MIT"), "verilog-eval": ("VerilogEval", "MIT")}
BUNDLED = ("ecot bundled suites (the ecot team)", "MIT")
KIND_TEXT = {
    "sft": "ECoT samples: the task, then `<think>` walking the verified repair path, then the final code",
    "preference": "preference pairs (DPO): a failed attempt (`rejected`) against the verified fix (`chosen`)",
    "trace": "execution-trace samples (CWM style): a Python program and input, then its line-level execution",
}


def source_of(task_id: str, domain: str) -> tuple[str, str]:
    prefix = task_id.split("/", 1)[0]
    if prefix in SOURCES:
        return SOURCES[prefix]
    if prefix == domain:
        return BUNDLED
    return (f"imported ({prefix})", "unknown: check the source's licence")


@dataclass
class CardStats:
    kind: str
    settings: dict[str, Any]
    samples: Counter[tuple[str, str]] = field(default_factory=Counter)  # (split, domain)
    tasks: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    labels: Counter[str] = field(default_factory=Counter)
    rounds: Counter[int] = field(default_factory=Counter)
    lengths: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    tools: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    sources: Counter[tuple[str, str]] = field(default_factory=Counter)
    runs: Counter[int] = field(default_factory=Counter)
    left_out: Counter[str] = field(default_factory=Counter)
    unit: str = "characters"

    def add(self, sample: Sample, split: str, tokens: dict[str, int] | None) -> None:
        meta = sample.metadata
        self.samples[(split, sample.domain)] += 1
        self.tasks[(split, sample.domain)].add(sample.task_id)
        self.labels.update(meta.get("labels") or [])
        self.rounds[int(meta.get("rounds", 0))] += 1
        if tokens is not None:
            self.unit = "tokens"
        self.lengths[sample.domain].append(tokens["tokens"] if tokens else len(sample.completion_text()))
        for tool, version in (meta.get("tool_versions") or {}).items():
            self.tools[tool][str(version)] += 1
        self.sources[source_of(sample.task_id, sample.domain)] += 1
        self.runs[int(meta.get("run_id") or 0)] += 1

    def render(self, files: dict[str, str]) -> str:
        return "\n".join([_front_matter(self, files), *_body(self)]) + "\n"


def _front_matter(stats: CardStats, files: dict[str, str]) -> str:
    licences = {licence for _, licence in stats.sources}
    lines = ["---", f"license: {'mit' if licences <= {'MIT'} else 'other'}", "task_categories:", "- text-generation",
             "tags:", "- code", "- ecot", "configs:", "- config_name: default", "  data_files:"]
    for split in SPLITS:
        if split in files:
            lines += [f"  - split: {split}", f"    path: {files[split]}"]
    return "\n".join([*lines, "---"])


def _body(stats: CardStats) -> list[str]:
    from ecot.export.stats import quantile  # ecot.export.stats imports the export package: import it late

    total = sum(stats.samples.values())
    out = [f"# ecot export ({stats.kind})", "", f"{total} {KIND_TEXT[stats.kind]}.", "",
           "Settings: `" + json.dumps(stats.settings, sort_keys=True) + "`", "", "## Samples per split and domain", "",
           "| domain | " + " | ".join(f"{s} samples | {s} tasks" for s in SPLITS) + " |", "|---" * (1 + 2 * len(SPLITS)) + "|"]
    for domain in sorted({d for _, d in stats.samples}):
        cells = [f"{stats.samples[(s, domain)]} | {len(stats.tasks.get((s, domain), ()))}" for s in SPLITS]
        out.append(f"| {domain} | " + " | ".join(cells) + " |")
    out += ["", f"## Lengths ({stats.unit})", "", "| domain | median | P25 | P75 | max |", "|---|---|---|---|---|"]
    for domain, values in sorted(stats.lengths.items()):
        ordered = sorted(values)
        q = [quantile(ordered, p) for p in (0.5, 0.25, 0.75)]
        out.append(f"| {domain} | {q[0]:.0f} | {q[1]:.0f} | {q[2]:.0f} | {ordered[-1]} |")
    out += _counts("Correction rounds", "rounds", sorted(stats.rounds.items()))
    out += _counts("Outcome labels (every turn of the exported trajectories)", "label", stats.labels.most_common())
    out += ["", "## Toolchain versions", "", "| tool | versions (samples) |", "|---|---|"]
    out += [f"| {tool} | " + ", ".join(f"{v} ({n})" for v, n in seen.most_common()) + " |" for tool, seen in sorted(stats.tools.items())]
    out += ["", "## Sources and licences", "", "| source | licence | samples |", "|---|---|---|"]
    out += [f"| {source} | {licence} | {n} |" for (source, licence), n in stats.sources.most_common()]
    out += _counts("Runs read", "run", sorted(stats.runs.items()))
    out += _counts("Left out", "reason", stats.left_out.most_common()) if stats.left_out else ["", "## Left out", "", "nothing"]
    return out


def _counts(title: str, key: str, items: list[tuple[Any, int]]) -> list[str]:
    return ["", f"## {title}", "", f"| {key} | samples |", "|---|---|", *(f"| {k} | {n} |" for k, n in items)]
