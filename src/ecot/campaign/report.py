"""The judge's numbers as Markdown tables, ready for docs/training.md, docs/benchmarks.md and docs/world-model.md."""

from __future__ import annotations

from typing import Any


def markdown(results: dict[str, Any]) -> str:
    lines = ["# GPU campaign results", "", *calls(results.get("calls", {})), *gpu(results.get("gpu", {})),
             *sft(results.get("sft", {})), *world(results.get("world", {}))]
    return "\n".join(lines) + "\n"


def _num(value: Any, digits: int = 3) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def calls(found: dict[str, Any]) -> list[str]:
    machines, rows = [], ["| call | part | exit | wall s | note |", "|---|---|---|---|---|"]
    for name, status in sorted(found.items()):
        env = status.get("environment", {})
        machines.append(f"- {name}: {env.get('gpu', 'no GPU')}, torch {env.get('torch', '?')}, Python {env.get('python', '?')}")
        for part in status.get("parts", []):
            note = part.get("skipped") or part.get("error") or ("cut at its time limit" if part.get("timed_out") else "")
            rows.append(f"| {name} | {part['name']} | {_num(part.get('rc'))} | {_num(part.get('wall_s'))} | {note} |")
    return ["## Device calls", "", *machines, "", *rows, ""]


def _tests(name: str, found: dict[str, Any]) -> str:
    if not found.get("ran"):
        return f"| {name} | not run |"
    failed = ", ".join(found["failed_tests"][:8]) or "none"
    bad = found["failures"] + found["errors"]
    return f"| {name} | {found['passed']} passed, {bad} failed, {found['skipped']} skipped (failed: {failed}) |"


def _rates(name: str, found: dict[str, Any]) -> str:
    if not found.get("ran"):
        return f"| {name} | not run |"
    fast = found["fast_p"]
    shown = ", ".join(f"fast_{p} {v:.2f}" for p, v in fast.items()) if isinstance(fast, dict) else fast
    return f"| {name} | {found['passed']}/{found['tasks']} pass on {', '.join(found['devices'])}; {found['timed']} timed; {shown} |"


def gpu(found: dict[str, Any]) -> list[str]:
    if not found:
        return []
    lines = ["## Step 1: the gpu domain on CUDA", "", "| what | result |", "|---|---|",
             _tests("GPU tests and canaries", found.get("tests", {})), _tests("inline CUDA", found.get("inline_cuda", {})),
             _rates("bundled references", found.get("references", {})),
             _rates("KernelBench references", found.get("kernelbench_references", {}))]
    compiled = found.get("kernelbench_compiled", {})
    for group, metrics in (compiled.get("groups") or {}).items():
        shown = ", ".join(f"{k} {_num(v, 2)}" for k, v in metrics.items())
        lines.append(f"| KernelBench torch.compile, {group} | {shown} |")
    return [*lines, ""]


def sft(found: dict[str, Any]) -> list[str]:
    if not found:
        return []
    training = found.get("training", {})
    lines = ["## Step 2: SFT and held-out scores", ""]
    if training.get("steps") is not None:
        lines += [f"Training: {training['steps']} steps on {training['train_rows']} rows ({training['train_tokens']} tokens), "
                  f"device {training['device']} (bf16 {training['bf16']}), final training loss {_num(training.get('final_train_loss'))}, "
                  f"validation loss {_num(training.get('eval_loss'))}, "
                  f"stopped by the time limit: {training.get('stopped_by_time_limit')}.", ""]
    for label in ("base", "trained"):
        meta = found.get(f"generation_{label}", {})
        if meta.get("generated_tokens") is not None:
            lines.append(f"Generation ({label}): {meta['prompts']} prompts x {meta['samples']} samples, "
                         f"{meta['generated_tokens']} tokens in {meta['wall_s']} s ({meta['tokens_per_s']} tokens/s).")
    lines += ["", "| group | metric | base | trained |", "|---|---|---|---|"]
    base, trained = found.get("bench_base", {}).get("groups") or {}, found.get("bench_trained", {}).get("groups") or {}
    for group in sorted(set(base) | set(trained)):
        for metric in sorted(set(base.get(group, {})) | set(trained.get(group, {}))):
            lines.append(f"| {group} | {metric} | {_num(base.get(group, {}).get(metric), 2)} | "
                         f"{_num(trained.get(group, {}).get(metric), 2)} |")
    return [*lines, ""]


def world(found: dict[str, Any]) -> list[str]:
    if not found.get("ran"):
        return ["## Step 3: the world models", "", "not run", ""] if found else []
    lines = ["## Step 3: the world models", "",
             f"{found['held_out_turns']} real turns of {found['held_out_tasks']} held-out tasks "
             f"(the same turns for both: {found['same_turns']}).",
             "", "| model | outcome accuracy | balanced | majority baseline | diagnostic similarity |", "|---|---|---|---|---|"]
    for key in ("lm", "fast"):
        row = found[key]
        lines.append(f"| {key} | {_num(row['outcome_accuracy'])} | {_num(row['balanced_accuracy'])} | "
                     f"{_num(row['majority_baseline'])} | {_num(row['diagnostic_similarity'])} |")
    lines += ["", "| domain | turns | lm accuracy | fast accuracy |", "|---|---|---|---|"]
    for domain, row in sorted(found["lm"]["per_domain"].items()):
        other = found["fast"]["per_domain"].get(domain, {})
        lines.append(f"| {domain} | {row['turns']} | {_num(row['accuracy'])} | {_num(other.get('accuracy'))} |")
    return [*lines, ""]
