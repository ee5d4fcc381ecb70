"""The python domain's trace format: its backend re-runs one test under a line tracer and stores the
trace with the turn (`metrics["trace"]`, docs/domains/python.md); `ecot export --kind trace` turns each
into a CWM-style sample: given the program and its input, predict the execution step by step."""

from __future__ import annotations

import json
from typing import Any

from ecot.core.extract import fence
from ecot.core.views import TraceFormat
from ecot.domains.python.jobs.trace import render

INSTRUCTIONS = """You predict how Python code executes. Given a program and its input, write the execution \
trace: one line per event (call, line, return, exception) with the function, the line number and its source, \
then after `|` the local variables that are new or changed since that frame's previous event, and on a \
return `->` the returned value. Indentation shows the call depth."""


def describe_input(value: Any) -> str:
    if isinstance(value, str):
        return f"The program runs with this standard input:\n{fence(value, 'text')}"
    if isinstance(value, list):
        return f"The entry point is called with these arguments (JSON): {json.dumps(value, ensure_ascii=False)}"
    return "The program runs with no input."


TRACES = TraceFormat(INSTRUCTIONS, describe_input, render)
