"""The built-in domain descriptors agree with their backends and are what extraction, export, import,
the world model's templates and the mutators read."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from ecot.core.domain import SharedLabel, domain_names, get_domain
from ecot.core.errors import EcotError, UnknownNameError
from ecot.core.extract import extract_code
from ecot.core.outcome import PASS, LabelKind, Outcome
from ecot.core.task import Task
from ecot.domains import BACKENDS
from ecot.domains.base import Backend
from ecot.domains.firmware.hints import firmware_word
from ecot.domains.rtl.domain import RtlLabel
from ecot.export.fold import language
from ecot.icwm.templates import strip_comments, template
from ecot.mutators import MUTATORS

BUILT_IN = ("asm", "cad", "firmware", "gpu", "python", "rtl")
DOMAINS_SRC = Path(__file__).resolve().parents[1] / "src" / "ecot" / "domains"


def test_every_built_in_domain_has_a_descriptor_named_for_it() -> None:
    assert set(BUILT_IN) <= set(domain_names())
    for name in BUILT_IN:
        assert get_domain(name).name == name


def host_modules(domain: str) -> list[Path]:
    """The domain's modules that judge on the host: not its sandbox jobs, planted bugs or task files."""
    folder = DOMAINS_SRC / domain
    return [path for path in sorted(folder.rglob("*.py")) if path.relative_to(folder).parts[0] not in ("jobs", "mutators", "suite")]


def labels_returned_in_source(domain: str) -> dict[str, str]:
    """Label -> where, for each `Outcome(<label>, ...)` (or another record whose first field is `label`)
    in the domain's host-side modules whose label is a constant: a name or attribute the module resolves
    to a string; local variables are skipped."""
    found: dict[str, str] = {}
    folder = DOMAINS_SRC / domain
    for path in host_modules(domain):
        relative = path.relative_to(folder)
        module = importlib.import_module(".".join(("ecot", "domains", domain, *relative.with_suffix("").parts)))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and makes_label(node.func.id, module):
                for label in constant_labels(node.args[0], module):
                    found.setdefault(label, f"{relative}:{node.lineno}")
    return found


def makes_label(name: str, module: ModuleType) -> bool:
    made = getattr(module, name, None)
    return made is Outcome or (dataclasses.is_dataclass(made) and dataclasses.fields(made)[0].name == "label")


def constant_labels(node: ast.expr, module: ModuleType) -> list[str]:
    """The strings an expression names through the module's globals (both arms of a conditional)."""
    if isinstance(node, ast.IfExp):
        return constant_labels(node.body, module) + constant_labels(node.orelse, module)
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = getattr(getattr(module, node.value.id, None), node.attr, None)
    elif isinstance(node, ast.Name):
        value = getattr(module, node.id, None)
    else:
        value = None
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_label_a_backend_returns_is_in_its_descriptor(name: str) -> None:
    domain = get_domain(name)
    backend = BACKENDS.get(name)
    assert backend.domain == name and backend.descriptor() is domain
    assert backend.all_labels() == domain.all_labels()
    returned = labels_returned_in_source(name)
    assert len(returned) >= 4, f"the scan found too few labels to mean anything: {returned}"
    undeclared = {label: where for label, where in returned.items() if label not in domain.all_labels()}
    assert not undeclared, f"{name} returns labels its descriptor does not declare: {undeclared}"
    assert all(domain.label_kind(label) is not None for label in domain.all_labels())


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_label_a_descriptor_declares_is_given_by_its_domains_code(name: str) -> None:
    """No dead label: each of the domain's own labels is named (enum member or string) outside domain.py."""
    labels = get_domain(name).labels
    text = "".join(path.read_text(encoding="utf-8") for path in host_modules(name) if path.name != "domain.py")
    unused = [member.value for member in labels if f"{labels.__name__}.{member.name}" not in text and f'"{member.value}"' not in text]
    assert not unused, f"{name} declares labels no code of the domain gives: {unused}"


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_repair_generator_reasons_only_about_declared_labels(name: str) -> None:
    evidence = set(MUTATORS.get(name).evidence)
    assert evidence and evidence <= set(get_domain(name).all_labels())


def test_a_backend_cannot_declare_labels_of_its_own() -> None:
    with pytest.raises(TypeError, match="declares `labels`.*descriptor"):

        class Stray(Backend):
            domain = "rtl"
            labels = (PASS, "Stray_Error")

            def evaluate(self, task: Task, options: object, candidate: str) -> Outcome:
                return Outcome(PASS, "")


def test_a_backend_without_a_descriptor_has_no_label_set() -> None:
    class Orphan(Backend):
        domain = "orphan"

        def evaluate(self, task: Task, options: object, candidate: str) -> Outcome:
            return Outcome(PASS, "")

    with pytest.raises(EcotError, match="domain 'orphan' has no descriptor"):
        Orphan.all_labels()


def test_labels_are_their_strings_and_carry_a_kind() -> None:
    rtl = get_domain("rtl")
    mismatch = RtlLabel.SIMULATION_MISMATCH
    assert mismatch == "Simulation_Mismatch" and json.dumps({"label": mismatch}) == '{"label": "Simulation_Mismatch"}'
    assert mismatch.kind is LabelKind.WRONG
    assert SharedLabel.PASS == PASS and type(PASS) is str  # the plain constant is what gets stored
    assert rtl.label_kind("Timeout") is LabelKind.LIMIT and rtl.label_kind("Hard_Fault") is None


def test_the_readers_follow_the_descriptor() -> None:
    answer = "```c\nint x;\n```\n```verilog\nmodule m; endmodule\n```\n```text\nnote\n```\n"
    assert extract_code(answer, "rtl") == "module m; endmodule\n"
    assert extract_code(answer, "firmware") == "int x;\n"
    assert [language(name) for name in ("rtl", "firmware", "asm", "gpu")] == ["verilog", "c", "asm", "python"]
    assert get_domain("rtl").source_suffix(["top.sv", "tb.v"]) == ".sv"
    assert get_domain("rtl").source_suffix(["tb.v"]) == ".v"
    assert MUTATORS.get("firmware").fence == "c" and MUTATORS.get("rtl").fence == "verilog"
    assert set(MUTATORS.names()) == set(BUILT_IN)


def test_the_world_model_reads_domain_words_from_the_descriptor() -> None:
    assert firmware_word("TIM2_IRQHandler") == "HANDLER" and firmware_word("while") == "KW"
    assert firmware_word("TIM2_IRQ") is None
    assert strip_comments("x = 1  # one\n", "python") == "x = 1       \n"
    assert template("asm").language == "asm"


def test_unknown_domains_are_named_in_the_error() -> None:
    with pytest.raises(UnknownNameError, match="unknown domain 'nosuch'.*rtl"):
        get_domain("nosuch")
    with pytest.raises(UnknownNameError, match="nosuch"):
        language("nosuch")
    with pytest.raises(UnknownNameError, match="nosuch"):
        BACKENDS.get("nosuch")


def test_options_default_to_a_model_that_refuses_every_key() -> None:
    from pydantic import ValidationError

    from ecot.core.domain import Domain, KindedLabel

    class NoLabels(KindedLabel):
        pass

    bare = Domain("bare", "text", (), ".txt", "#", NoLabels, "bare:Backend")
    assert bare.options_model()().model_dump() == {}
    with pytest.raises(ValidationError, match="seeed"):
        bare.options_model().model_validate({"seeed": 1})
    named = Domain("named", "text", (), ".txt", "#", NoLabels, "bare:Backend", options="ecot.core.options:NoOptions")
    assert named.options_model() is bare.options_model()
