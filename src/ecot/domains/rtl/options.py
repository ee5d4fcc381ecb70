"""The rtl backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/rtl.md."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from ecot.domains.base import OptionProblem
from ecot.domains.budget import BudgetOptions

DEFAULT_PASS = r"Mismatches: 0 in \d+ samples"
DEFAULT_COUNT = r"Mismatches: (?P<mismatches>\d+) in (?P<samples>\d+) samples"
LINT_FLAGS = ("-Wall", "-Wno-DECLFILENAME", "-Wno-UNUSEDSIGNAL", "-Wno-UNUSEDPARAM", "-Wno-EOFNEWLINE")
SynthMode = Literal["check", "strict", "warn", "off"]
TestbenchKind = Literal["verilog", "cocotb"]
ParameterValue = int | str
_TIMESCALE = re.compile(r"^\s*(1|10|100)\s*(s|ms|us|ns|ps|fs)\s*/\s*(1|10|100)\s*(s|ms|us|ns|ps|fs)\s*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class RtlOptions(BudgetOptions):
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
    testbench_kind: TestbenchKind = Field(
        "verilog", description='"cocotb": Python tests (cocotb 2.x) drive the design `top` in Icarus instead of a Verilog testbench'
    )
    test_modules: tuple[str, ...] = Field((), description="cocotb: the test modules (default: every test_*.py of the bundle)")
    parameters: tuple[dict[str, ParameterValue], ...] = Field(
        (), description="cocotb: parameter sets of `top` (a table or a list of tables); the tests run once per set"
    )
    timescale: str = Field("1ns/1ps", description="cocotb: time unit/precision of modules that declare none")
    seed: int | Literal["random"] = Field(0, description='cocotb: COCOTB_RANDOM_SEED; "random": a new seed every run')

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

    @field_validator("parameters", mode="before")
    @classmethod
    def _one_or_more_sets(cls, sets: object) -> object:
        return (sets,) if isinstance(sets, Mapping) else sets

    @field_validator("parameters")
    @classmethod
    def _parameter_names(cls, sets: tuple[dict[str, ParameterValue], ...]) -> tuple[dict[str, ParameterValue], ...]:
        for values in sets:
            for name, value in values.items():
                if not _IDENTIFIER.match(name):
                    raise ValueError(f"{name!r} is not a Verilog parameter name")
                if isinstance(value, str) and ("\n" in value or not value.strip()):
                    raise ValueError(f"the value of {name} must be one line of Verilog (as iverilog -P reads it)")
        return sets

    @field_validator("timescale")
    @classmethod
    def _timescale(cls, timescale: str) -> str:
        if not _TIMESCALE.match(timescale):
            raise ValueError('must be unit/precision, each 1, 10 or 100 of s, ms, us, ns, ps or fs (e.g. "1ns/1ps")')
        return timescale.replace(" ", "")

    @field_validator("test_modules")
    @classmethod
    def _module_names(cls, modules: tuple[str, ...]) -> tuple[str, ...]:
        bad = [name for name in modules if not _MODULE.match(name)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a Python module name")
        return modules

    @model_validator(mode="after")
    def _cocotb_needs_top(self) -> RtlOptions:
        if self.testbench_kind == "cocotb" and not self.top:
            raise ValueError('testbench_kind "cocotb" needs option top: the design module the tests drive')
        return self

    def cocotb_modules(self, files: Mapping[str, str]) -> tuple[str, ...]:
        """The cocotb test modules: option test_modules, else every test_*.py at the bundle's root."""
        return self.test_modules or tuple(sorted(name[:-3] for name in files if name.startswith("test_") and name.endswith(".py")))

    def check_bundle(self, files: Mapping[str, str]) -> None:
        if self.testbench and self.testbench not in files:
            raise OptionProblem("testbench", f"file {self.testbench!r} is not in the bundle")
        if self.testbench_kind == "cocotb":
            modules = self.cocotb_modules(files)
            if not modules:
                raise OptionProblem("test_modules", "no cocotb test module: name one, or add a test_*.py file to the bundle")
            missing = [name for name in modules if f"{name.replace('.', '/')}.py" not in files]
            if missing:
                raise OptionProblem("test_modules", f"module {missing[0]!r} has no file {missing[0].replace('.', '/')}.py in the bundle")
