"""Maintaining asm task folders: regenerate `baseline.s` with gcc -O3 and the prompt around it.

    python -m ecot.domains.asm.suite_builder src/ecot/domains/asm/suite            # every task folder below
    python -m ecot.domains.asm.suite_builder src/ecot/domains/asm/suite/popcount64 # one task

A task folder holds task.toml (its prompt starts with a free-text description), func.c (the C
function), driver.c, tests.txt and reference.s. This tool compiles func.c with the flags below,
writes baseline.s, and rewrites the prompt as the description followed by the C source, the
baseline assembly and the rules, so the prompt always shows exactly the files the backend uses.
It runs gcc on trusted, team-written sources on the host (no candidate code is involved).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import tomli_w

BASELINE_FLAGS = (
    "-O3", "-S", "-fno-asynchronous-unwind-tables", "-fno-exceptions", "-fcf-protection=none",
    "-fno-stack-protector", "-fno-pie",
)
MARKER = "\n\nC function (`func.c`):"


def baseline_assembly(c_source: str) -> str:
    """gcc -O3 assembly of the C source, without the compiler's identification line."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "func.c"
        source.write_text(c_source)
        subprocess.run(["gcc", *BASELINE_FLAGS, "-o", "baseline.s", "func.c"], cwd=tmp, check=True)
        text = (Path(tmp) / "baseline.s").read_text()
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith(".ident"))


def render_prompt(description: str, function: str, c_source: str, baseline: str) -> str:
    return (
        f"{description.strip()}{MARKER}\n```c\n{c_source.rstrip()}\n```\n\n"
        f"gcc -O3 output (`baseline.s`):\n```asm\n{baseline.rstrip()}\n```\n\n"
        f"Write x86-64 assembly for GNU as that defines the global function `{function}` with exactly the "
        "behaviour of the C function for every input, and executes fewer instructions than the gcc -O3 "
        "baseline. AT&T syntax by default; `.intel_syntax noprefix` is allowed. Follow the System V AMD64 ABI "
        "(arguments in rdi, rsi, rdx, rcx, r8, r9; result in rax; preserve rbx, rbp and r12-r15; keep the "
        "stack 16-byte aligned at every call). Target baseline x86-64 (SSE2): POPCNT, BMI and AVX may be "
        "missing on the machine that runs the tests. The test driver calls the function through a checking "
        "trampoline with the task's fixed cases and a few hundred random ones, and compares every result "
        "with the C function's."
    )


def description_of(prompt: str) -> str:
    return prompt.split(MARKER, 1)[0]


def refresh(folder: Path) -> None:
    meta_path = folder / "task.toml"
    meta = tomllib.loads(meta_path.read_text())
    c_source = (folder / "func.c").read_text()
    baseline = baseline_assembly(c_source)
    (folder / "baseline.s").write_text(baseline)
    function = meta["options"]["function"]
    meta["prompt"] = render_prompt(description_of(meta["prompt"]), function, c_source, baseline)
    meta_path.write_text(tomli_w.dumps(meta, multiline_strings=True))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = Path(argv[0])
    folders = [root] if (root / "task.toml").is_file() else sorted(p.parent for p in root.glob("*/task.toml"))
    for folder in folders:
        refresh(folder)
        print(f"refreshed {folder}")
    return 0


def prompt_is_current(prompt: str, function: str, c_source: str, baseline: str) -> bool:
    """Whether a prompt shows exactly these sources (for the suite's consistency test)."""
    return prompt == render_prompt(description_of(prompt), function, c_source, baseline)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
