"""The firmware backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/firmware.md."""

from __future__ import annotations

from pydantic import Field

from ecot.domains.base import DomainOptions


class FirmwareOptions(DomainOptions):
    source_file: str = Field("solution.c", description="name the candidate is compiled as")
    harness: str = Field("harness.c", description="bundle file with the trusted test harness")
    expect: str = Field("expect.toml", description="bundle file with the expected register accesses and output")
    opt: str = Field("-O2", pattern=r"^-O[0-3sgz]?$", description="optimization level the candidate is compiled with")
    cflags: tuple[str, ...] = Field((), description="extra compiler flags for the candidate")
    stack_size: int = Field(4096, gt=0, description="bytes of stack given to the program")
    heap_size: int = Field(2048, gt=0, description="bytes of heap given to the program")
    sim_ms: int = Field(200, gt=0, description="simulated milliseconds the program may run")
    max_accesses: int = Field(50_000, gt=0, description="most peripheral accesses traced")

    @property
    def budget_us(self) -> int:
        """Simulated microseconds before the harness's watchdog stops the run."""
        return self.sim_ms * 1000

