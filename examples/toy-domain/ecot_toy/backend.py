"""Shell scripts: `sh -n` is the compiler, `sh` the machine, the expected standard output the test."""

from __future__ import annotations

from ecot import sandbox
from ecot.core.outcome import PASS, TIMEOUT, Outcome
from ecot.core.task import Task
from ecot.domains.base import Backend
from ecot_toy.domain import ToyLabel, ToyOptions


class ToyBackend(Backend[ToyOptions]):
    domain = "toy"  # its labels are the descriptor's: ToyLabel and the shared ones
    tools = ("sh",)
    options_model = ToyOptions

    def evaluate(self, task: Task, options: ToyOptions, candidate: str) -> Outcome:
        expect = options.expect
        with sandbox.workdir("ecot-toy-") as work:
            sandbox.write_files(work, {"candidate.sh": candidate})
            parsed = sandbox.run(["sh", "-n", "candidate.sh"], work, task.limits)
            if parsed.returncode != 0:
                return Outcome(ToyLabel.TOY_SYNTAX_ERROR, parsed.stderr.strip()[:300], parsed.stderr)
            ran = sandbox.run(["sh", "candidate.sh"], work, task.limits)
        if ran.timed_out:
            return Outcome(TIMEOUT, "the script ran out of time")
        got = ran.stdout.strip()
        if got != expect:
            return Outcome(ToyLabel.TOY_WRONG_OUTPUT, f"expected {expect!r}, got {got!r}", ran.stdout + ran.stderr)
        return Outcome(PASS, "the output matches")
