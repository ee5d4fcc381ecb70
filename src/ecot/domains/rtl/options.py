"""The rtl backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/rtl.md."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator

from ecot.domains.base import DomainOptions, OptionProblem

DEFAULT_PASS = r"Mismatches: 0 in \d+ samples"
DEFAULT_COUNT = r"Mismatches: (?P<mismatches>\d+) in (?P<samples>\d+) samples"
LINT_FLAGS = ("-Wall", "-Wno-DECLFILENAME", "-Wno-UNUSEDSIGNAL", "-Wno-UNUSEDPARAM", "-Wno-EOFNEWLINE")
SynthMode = Literal["check", "strict", "warn", "off"]


class RtlOptions(DomainOptions):
    top: str | None = Field(None, description="module the candidate must define (Yosys/Verilator); None: every module is checked")
    tb_top: str | None = Field(None, description="the testbench's top module (default: found in the testbench)")
    testbench: str | None = Field(None, description="bundle file with the self-checking testbench (default: testbench.sv/.v, tb.sv/.v)")
    design_file: str = Field("design.sv", description="name the candidate is written to")
    hidden_modules: tuple[str, ...] = Field((), description="bundle modules renamed per evaluation so a candidate cannot instantiate them")
    hidden_files: tuple[str, ...] | None = Field(
        None, description="bundle data files only the testbench may open (default: every data file it names in a string literal)"
    )
    pass_pattern: str = Field(DEFAULT_PASS, description="regex over the testbench's lines that marks a pass")
    fail_pattern: str | None = Field(None, description="regex that marks a failure")
    count_pattern: str | None = Field(DEFAULT_COUNT, description="regex with named groups mismatches and samples")
    samples: int | Literal["any"] | None = Field(
        None, description='sample count a passing run must report: default measured from the reference; "any": not checked'
    )
    synth: SynthMode = Field("check", description='Yosys structural checks: "check" (= "strict"), "warn" or "off"')
    allow_latches: bool = Field(False, description="do not fail on inferred latches")
    gate_count: bool = Field(False, description="run full Yosys synthesis so the `cells` metric counts gates")
    lint: bool = Field(False, description="run Verilator lint after a passing simulation")
    lint_flags: tuple[str, ...] = Field(LINT_FLAGS, description="Verilator lint flags")
    plusargs: tuple[str, ...] = Field((), description="extra vvp +args")

    @field_validator("pass_pattern", "fail_pattern", "count_pattern")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"not a valid regular expression: {err}") from None
        return pattern

    @field_validator("samples")
    @classmethod
    def _positive(cls, samples: int | str | None) -> int | str | None:
        if isinstance(samples, int) and samples < 0:
            raise ValueError("must be a non-negative integer or \"any\"")
        return samples

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.testbench and self.testbench not in files:
            raise OptionProblem("testbench", f"file {self.testbench!r} is not in the bundle")
