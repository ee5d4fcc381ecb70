"""The asm backend's task [options] (task.toml), checked when a suite is loaded. See docs/domains/asm.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from ecot.domains.base import OptionProblem
from ecot.domains.budget import BudgetOptions

SpeedMode = Literal["both", "callgrind", "wall", "off"]


class AsmOptions(BudgetOptions):
    function: str = Field(min_length=1, description="the C function the candidate implements (required)")
    driver: str = Field("driver.c", description="bundle file with the C driver that calls the function")
    baseline: str = Field("baseline.s", description="bundle file with gcc -O3's assembly (the speed baseline)")
    tests: str = Field("tests.txt", description="bundle file with the fixed test cases")
    random_cases: int = Field(200, ge=0, description="random cases per evaluation, seeded from the candidate's text")
    # wall time too with "both": noisy on shared machines, so opt-in
    speed: SpeedMode = Field("callgrind", description="how a passing candidate is measured")
    speed_cases: int = Field(100, ge=1, description="cases in the speed workload")
    bench_ms: float = Field(10.0, gt=0, description="target wall time of one timed repetition")

    def check_bundle(self, files: Mapping[str, str]) -> None:
        for option in ("driver", "baseline", "tests"):
            name = getattr(self, option)
            if name not in files:
                raise OptionProblem(option, f"bundle file {name!r} is missing")

    def counts_instructions(self) -> bool:
        return self.speed in ("both", "callgrind")

    def times_wall(self) -> bool:
        return self.speed in ("both", "wall")
