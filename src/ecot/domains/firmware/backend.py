"""Bare-metal C firmware for an STM32F405 (Cortex-M4): arm-none-eabi-gcc + newlib, run in QEMU.

Per evaluation, in one sandbox: compile the candidate alone (it sees the register header, the
linker script and the task's headers, never the harness or the expectations), link it with the
cached trusted unit (startup, MPU, fault trap, peripheral model, the task's harness) while the
per-evaluation report tag enters as link-time symbols, then run the ELF in QEMU's netduinoplus2
with -icount (deterministic), semihosting and the -d unimp register trace. On a fault or a
watchdog stop the PCs are named with addr2line. See docs/domains/firmware.md for the task format
and the trust design.

Options (task.toml [options]): source_file, harness, expect, opt, cflags, stack_size, heap_size,
sim_ms, max_accesses (see firmware_FirmwareOptions).
"""

from __future__ import annotations

import secrets
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from ecot import sandbox
from ecot.core.errors import ToolMissingError
from ecot.core.outcome import TIMEOUT, Outcome, infra_error, truncate_log
from ecot.core.task import Task
from ecot.domains.base import Backend, tool_version
from ecot.domains.firmware import build
from ecot.domains.firmware import run as qemu
from ecot.domains.firmware.domain import FirmwareLabel
from ecot.domains.firmware.expect import Expectations, parse_expectations
from ecot.domains.firmware.judge import judge
from ecot.domains.firmware.options import FirmwareOptions
from ecot.domains.firmware.report import parse_report, tag_text
from ecot.domains.firmware.trace import Trace, parse_trace

COMPILATION_ERROR = FirmwareLabel.COMPILATION_ERROR.value
LINK_ERROR = FirmwareLabel.LINK_ERROR.value
NEWLIB_HINT = "install the Debian package libnewlib-arm-none-eabi (`make setup`)"


class FirmwareBackend(Backend[FirmwareOptions]):
    domain = "firmware"
    options_model = FirmwareOptions
    tools = ("arm-none-eabi-gcc", "arm-none-eabi-addr2line", "qemu-system-arm")
    install_hint = "install the Debian packages gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm (`make setup`)"

    def check_tools(self) -> None:
        super().check_tools()
        if not _has_newlib():
            raise ToolMissingError("newlib (libc_nano.a for arm-none-eabi)", NEWLIB_HINT)

    def evaluate(self, task: Task, settings: FirmwareOptions, candidate: str) -> Outcome:
        expect = _expectations(task, settings)
        trusted = build.trusted_object(task, settings)
        if isinstance(trusted, str):
            return infra_error(f"task {task.id}: the trusted harness unit does not compile", trusted)
        tag = (secrets.randbits(32), secrets.randbits(32))
        with sandbox.workdir("ecot-fw-") as work:
            return self._build_and_run(task, settings, expect, trusted, tag, candidate, work)

    def _build_and_run(
        self, task: Task, settings: FirmwareOptions, expect: Expectations, trusted: build.Trusted,
        tag: tuple[int, int], candidate: str, work: Path,
    ) -> Outcome:
        folder = qemu.RunFolder.new()
        sandbox.write_files(work, {**build.candidate_visible_files(task, settings), settings.source_file: candidate})
        qemu.prepare(work, folder)
        (work / folder.objects[0]).write_bytes(trusted.runtime)
        (work / folder.objects[1]).write_bytes(trusted.harness)
        steps = [
            sandbox.Step(build.compile_argv(settings)),
            sandbox.Step(build.link_argv(settings, trusted, tag, folder.elf, folder.objects)),
            sandbox.Step(qemu.qemu_argv(folder)),
        ]
        results = sandbox.run_steps(steps, work, task.limits)
        metrics: dict[str, Any] = {"build_s": round(sum(r.wall_s for r in results[:2]), 4)}
        if len(results) == 1 or not results[0].ok:
            return _compile_outcome(results[0], settings, metrics)
        metrics.update(build.memory_usage(results[1].output))
        if len(results) == 2 or not results[1].ok:
            return _link_outcome(results[1], metrics)
        run = results[2]
        metrics["run_s"] = round(run.wall_s, 4)
        found = qemu.collect(work, folder)
        report = parse_report(found.semihost, tag_text(*tag))
        trace = parse_trace(found.trace)

        def symbolize(addresses: list[int]) -> dict[int, str]:
            if not addresses:
                return {}
            named = sandbox.run_steps([qemu.addr2line_step(folder, addresses)], work, task.limits)[0]
            return qemu.parse_addr2line(named.stdout, addresses) if named.ok else {}

        verdict = judge(settings, expect, run, found, report, trace, symbolize, task.limits.wall_s)
        log = _run_log(results, found, trace, tag)
        return Outcome(verdict.label, verdict.diagnostic, truncate_log(log), {**metrics, **verdict.metrics})

    def tool_versions(self) -> dict[str, str]:
        return {tool: tool_version(tool) for tool in ("arm-none-eabi-gcc", "qemu-system-arm")}


def _expectations(task: Task, settings: FirmwareOptions) -> Expectations:
    text = task.files.get(settings.expect)
    if text is None:
        raise ValueError(f"task {task.id}: expectations file {settings.expect!r} is not in the bundle")
    return parse_expectations(text, f"{task.id}/{settings.expect}")


def _compile_outcome(result: sandbox.ExecResult, settings: FirmwareOptions, metrics: dict[str, Any]) -> Outcome:
    if result.timed_out:
        return Outcome(TIMEOUT, "the compiler did not finish within the time limit", truncate_log(result.output), metrics)
    log = truncate_log(build.strip_dirs(result.output))
    return Outcome(COMPILATION_ERROR, build.compile_diagnostic(result.output, settings), log, metrics)


def _link_outcome(result: sandbox.ExecResult, metrics: dict[str, Any]) -> Outcome:
    if result.timed_out:
        return Outcome(TIMEOUT, "the linker did not finish within the time limit", truncate_log(result.output), metrics)
    diagnostic, extra = build.link_diagnostic(result.output)
    return Outcome(LINK_ERROR, diagnostic, truncate_log(build.strip_dirs(result.output)), {**metrics, **extra})


def _run_log(results: list[sandbox.ExecResult], found: qemu.Artifacts, trace: Trace, tag: tuple[int, int]) -> str:
    """What an engineer would scroll through: build warnings, the console, the harness report, the
    end of the register trace. The tag never appears in it."""
    parts = []
    warnings = build.strip_dirs(results[0].output + results[1].output).strip()
    if warnings:
        parts.append(f"[build]\n{warnings}")
    console = build.strip_dirs(results[2].output.replace("\x02", "")).strip()
    if console:
        parts.append(f"[firmware console]\n{console}")
    marker = f"\x02{tag_text(*tag)} "
    harness = [ln for ln in found.semihost.replace(marker, "\n[harness] ").splitlines() if ln.startswith("[harness]")]
    if harness:
        parts.append("\n".join(harness))
    for port, data in found.serial.items():
        if data:
            parts.append(f"[{port}] {data[:400].decode('latin-1')!r}")
    if trace.accesses:
        lines = [a.describe() for a in trace.accesses[-20:]]
        parts.append(f"[register trace: {len(trace.accesses)} accesses, last {len(lines)}]\n" + "\n".join(lines))
    if trace.other:
        parts.append("[qemu]\n" + "\n".join(trace.other[:10]))
    return "\n\n".join(parts)


@lru_cache(maxsize=1)
def _has_newlib() -> bool:
    try:
        found = subprocess.run(
            ["arm-none-eabi-gcc", *build.ARCH, "-specs=nano.specs", "-print-file-name=libc_nano.a"],
            capture_output=True, text=True, timeout=20, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "/" in found.stdout.strip()
