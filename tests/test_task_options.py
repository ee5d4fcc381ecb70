"""Task [options] are typed per domain and checked when a suite is loaded, naming file and option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomli_w

from ecot.core.errors import TaskOptionsError
from ecot.domains import options_model
from ecot.domains.base import FreeOptions
from ecot.tasks.suite import bundled_domains, bundled_suite_path, load_suite

# per domain: options that are valid, the bundle they need, a typo'd name, and a value of the wrong type
CASES: dict[str, dict[str, Any]] = {
    "rtl": {"files": {"tb.sv": "module tb; endmodule"}, "good": {"top": "top_module", "testbench": "tb.sv"},
            "typo": "tpo", "bad": ("synth", "sometimes")},
    "gpu": {"files": {"model.py": "class Model: pass"}, "good": {"atol": 0.01, "cpu_scale": 4},
            "typo": "atoll", "bad": ("trials", "many")},
    "cad": {"files": {}, "good": {"iou_min": 0.99, "self_check": False},
            "typo": "iou_mni", "bad": ("single_solid", "yes")},
    "asm": {"files": {"driver.c": "", "baseline.s": "", "tests.txt": ""}, "good": {"function": "f"},
            "typo": "functoin", "bad": ("random_cases", [1, 2])},
    "python": {"files": {"tests.json": "[]"}, "good": {"entry_point": "solve"},
               "typo": "entrypoint", "bad": ("compare", "fuzzy")},
    "firmware": {"files": {}, "good": {"opt": "-Os"}, "typo": "stack", "bad": ("heap_size", -4)},
}


def write_task(root: Path, domain: str, options: dict[str, Any], files: dict[str, str]) -> Path:
    folder = root / f"{domain}-task"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    meta = {"id": f"{domain}-task", "domain": domain, "prompt": "do it", "options": options}
    (folder / "task.toml").write_text(tomli_w.dumps(meta), encoding="utf-8")
    return folder


@pytest.mark.parametrize("domain", sorted(CASES))
def test_valid_options_load(tmp_path: Path, domain: str) -> None:
    case = CASES[domain]
    task = load_suite(write_task(tmp_path, domain, case["good"], case["files"]))[0]
    assert dict(task.options) == case["good"]  # the stored form stays the plain table


@pytest.mark.parametrize("domain", sorted(CASES))
def test_a_typo_fails_at_load_naming_file_and_option(tmp_path: Path, domain: str) -> None:
    case = CASES[domain]
    options = {**case["good"], case["typo"]: 1}
    folder = write_task(tmp_path, domain, options, case["files"])
    with pytest.raises(TaskOptionsError) as err:
        load_suite(folder)
    assert err.value.option == case["typo"]
    assert str(folder / "task.toml") in str(err.value) and f"'{case['typo']}'" in str(err.value)


@pytest.mark.parametrize("domain", sorted(CASES))
def test_a_wrong_type_fails_at_load_naming_file_and_option(tmp_path: Path, domain: str) -> None:
    case = CASES[domain]
    name, value = case["bad"]
    folder = write_task(tmp_path, domain, {**case["good"], name: value}, case["files"])
    with pytest.raises(TaskOptionsError) as err:
        load_suite(folder)
    assert err.value.option == name and str(folder / "task.toml") in str(err.value)


def test_a_missing_bundle_file_named_by_an_option_fails_at_load(tmp_path: Path) -> None:
    folder = write_task(tmp_path, "asm", {"function": "f", "tests": "cases.txt"}, CASES["asm"]["files"])
    with pytest.raises(TaskOptionsError, match="cases.txt") as err:
        load_suite(folder)
    assert err.value.option == "tests"


def test_jsonl_suites_are_checked_too(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    path.write_text('{"id": "a", "domain": "cad", "prompt": "p", "options": {"iou_mni": 0.5}}\n', encoding="utf-8")
    with pytest.raises(TaskOptionsError, match=rf"{path}:1: option 'iou_mni'"):
        load_suite(path)


def test_a_domain_without_a_model_accepts_any_options(tmp_path: Path) -> None:
    assert options_model("toy_domain_nobody_registered") is FreeOptions
    task = load_suite(write_task(tmp_path, "toy", {"anything": [1, 2]}, {}))[0]
    assert task.options["anything"] == [1, 2]


def test_options_models_are_strict_and_frozen() -> None:
    for domain in CASES:
        model = options_model(domain)
        assert model.model_config.get("extra") == "forbid" and model.model_config.get("frozen") is True


@pytest.mark.parametrize("domain", bundled_domains())
def test_bundled_suites_load_and_their_options_validate(domain: str) -> None:
    tasks = load_suite(bundled_suite_path(domain))
    model = options_model(domain)
    for task in tasks:
        model.of_task(task)  # raises on a bad option
    assert tasks


def test_a_registered_domain_declares_its_model_on_its_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ecot import domains
    from ecot.core.outcome import PASS, Outcome
    from ecot.core.task import Task
    from ecot.domains.base import Backend, DomainOptions

    class ToyOptions(DomainOptions):
        rounds: int = 1

    class ToyBackend(Backend):
        domain = "toyopts"
        options_model = ToyOptions

        def evaluate(self, task: Task, options: object, candidate: str) -> Outcome:
            return Outcome(PASS, "")

    monkeypatch.setitem(domains.BACKENDS._targets, "toyopts", "unused:ToyBackend")
    monkeypatch.setitem(domains.BACKENDS._loaded, "toyopts", ToyBackend)
    domains.options_model.cache_clear()
    try:
        assert options_model("toyopts") is ToyOptions
        assert load_suite(write_task(tmp_path, "toyopts", {"rounds": 3}, {}))[0].options["rounds"] == 3
        with pytest.raises(TaskOptionsError, match="'runds'"):
            load_suite(write_task(tmp_path / "typo", "toyopts", {"runds": 3}, {}))
    finally:
        domains.options_model.cache_clear()


# per domain: a small bundled task whose reference passes on every machine the domain runs on
ONE_TASK = {"asm": "asm/bit_reverse32", "cad": "cad/bore_block", "firmware": "firmware/q15_mul_sat", "gpu": "gpu/relu",
            "python": "python/fizzbuzz", "rtl": "rtl/add8_carry"}


@pytest.mark.parametrize("domain", sorted(ONE_TASK))
def test_an_evaluation_validates_its_options_once_and_hands_them_down(domain: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`Backend.run` builds the typed options and every step of the evaluation reads that one model:
    one validation per evaluation, the first (which fills the backend's per-task caches) as later ones."""
    from ecot.core.errors import ToolMissingError
    from ecot.domains import get_backend

    task = next(t for t in load_suite(bundled_suite_path(domain)) if t.id == ONE_TASK[domain])
    try:
        backend = get_backend(domain)
    except ToolMissingError as err:
        pytest.skip(f"the {domain} backend needs the missing tool '{err.tool}'")
    model = options_model(domain)
    validated: list[object] = []
    plain = model.model_validate

    def counted(cls: type[Any], data: Any, **keywords: Any) -> Any:
        validated.append(data)
        return plain(data, **keywords)

    monkeypatch.setattr(model, "model_validate", classmethod(counted))
    for evaluations in (1, 2):
        outcome = backend.run(task, task.reference or "")
        assert outcome.passed, f"{task.id}: {outcome.label}: {outcome.diagnostic}"
        assert len(validated) == evaluations, f"{task.id}: {len(validated)} validations after {evaluations} evaluations"
