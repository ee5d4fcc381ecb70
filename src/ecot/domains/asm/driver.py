"""The C test harness every asm task driver includes: jobs/ecot_asm.h (what it offers a driver is
described at its top), written into the sandbox as `ecot_asm.h` with the system-call filter's entry
point (seccomp.py, generated from the filter it assembles) appended."""

from __future__ import annotations

from pathlib import Path

from ecot.domains.asm.seccomp import c_source

HEADER_NAME = "ecot_asm.h"
HARNESS_FILE = Path(__file__).resolve().parent / "jobs" / HEADER_NAME

HARNESS_H = HARNESS_FILE.read_text(encoding="utf-8") + c_source()
