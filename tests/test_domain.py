"""The built-in domain descriptors agree with their backends and are what extraction, export, import,
the world model's templates and the mutators read."""

from __future__ import annotations

import json

import pytest

from ecot.core.domain import SharedLabel, domain_names, get_domain
from ecot.core.errors import UnknownNameError
from ecot.core.extract import extract_code
from ecot.core.outcome import PASS, LabelKind
from ecot.domains import BACKENDS
from ecot.domains.rtl.domain import RtlLabel
from ecot.export.fold import language
from ecot.icwm.templates import firmware_word, strip_comments, template
from ecot.mutators import MUTATORS

BUILT_IN = ("asm", "cad", "firmware", "gpu", "python", "rtl")


def test_every_built_in_domain_has_a_descriptor_named_for_it() -> None:
    assert set(BUILT_IN) <= set(domain_names())
    for name in BUILT_IN:
        assert get_domain(name).name == name


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_descriptor_names_exactly_its_backends_labels(name: str) -> None:
    domain = get_domain(name)
    backend = BACKENDS.get(name)
    assert backend.domain == name
    assert set(backend.labels) <= set(domain.all_labels())
    own = {str(label) for label in domain.labels}
    assert own == set(backend.labels) - {str(label) for label in SharedLabel}
    assert all(domain.label_kind(label) is not None for label in domain.all_labels())


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
