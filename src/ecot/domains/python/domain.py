"""The python domain's descriptor: programs judged by their tests or their output."""

from __future__ import annotations

from pathlib import Path

from ecot.core.domain import Domain, KindedLabel, LabelKind
from ecot.domains.python.hints import HINTS


class PythonLabel(KindedLabel):
    SYNTAX_ERROR = "Syntax_Error", LabelKind.BUILD
    RUNTIME_ERROR = "Runtime_Error", LabelKind.RUNTIME
    WRONG_ANSWER = "Wrong_Answer", LabelKind.WRONG
    MEMORY_LIMIT = "Memory_Limit", LabelKind.LIMIT


DOMAIN = Domain(
    name="python",
    language="python",
    fences=("python", "py", "python3"),
    suffix=".py",
    comment="#",
    labels=PythonLabel,
    backend="ecot.domains.python.backend:PythonBackend",
    options="ecot.domains.python.options:PythonOptions",
    mutators="ecot.domains.python.mutators:PYTHON_MUTATIONS",
    hints=HINTS,
    instructions=Path(__file__).parent / "prompts.toml",
    traces="ecot.domains.python.traces:TRACES",
)
