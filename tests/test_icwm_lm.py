"""The language-model world model: a tiny end-to-end fine-tune on CPU, save and offline reload; on a GPU
machine, a short fine-tune of the embedded SmolLM2 on the GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the lm world model needs torch (the ml extra)")
pytest.importorskip("transformers", reason="the lm world model needs transformers (the ml extra)")

from ecot.core.outcome import Outcome  # noqa: E402
from ecot.core.task import Task  # noqa: E402
from ecot.icwm import load_model  # noqa: E402
from ecot.icwm.dataset import Example  # noqa: E402
from ecot.icwm.lm import LMWorldModel  # noqa: E402
from ecot.icwm.templates import render_observation, render_prompt  # noqa: E402
from ecot.icwm.tiny import make_tiny_checkpoint  # noqa: E402

REFERENCE = "module adder(input [3:0] a, b, output [4:0] s);\n  assign s = a + b;\nendmodule\n"
TASK = Task(id="rtl/adder", domain="rtl", prompt="Write a 4-bit adder.", files={"tb.sv": "module tb; endmodule\n"}, reference=REFERENCE)
TASKS = {TASK.id: TASK}


def examples() -> list[Example]:
    """Three kinds of candidates with their (real-looking) outcomes, repeated."""
    kinds = [
        (REFERENCE, Outcome("Pass", "simulation passed: Mismatches: 0 in 256 samples", metrics={"mismatches": 0})),
        (REFERENCE.replace("a + b;", "a + b"), Outcome("Syntax_Error", "design.sv:3: syntax error")),
        (REFERENCE.replace("a + b", "a - b"), Outcome("Simulation_Mismatch", "MISMATCH signal=s expected=03 got=1f", metrics={"mismatches": 200})),
    ]
    return [Example(TASK.id, "rtl", code, outcome, sample=i) for i in range(4) for code, outcome in kinds]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    texts = [render_prompt(TASK, e.code, 800) + render_observation(e.outcome, "rtl") for e in examples()]
    return make_tiny_checkpoint(tmp_path_factory.mktemp("tiny"), texts * 4)


def small(base: str, **options: object) -> LMWorldModel:
    settings = {"steps": 30, "batch_size": 4, "lr": 3e-3, "max_prompt_tokens": 192, "max_new_tokens": 24, "budget_chars": 800, "device": "cpu"}
    return LMWorldModel(base=base, **{**settings, **options})  # type: ignore[arg-type]


def test_tiny_lm_world_model_trains_predicts_saves_and_reloads_offline(tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = small(str(tiny))
    train = examples()
    model.fit(train, TASKS)
    info = model.training
    assert info["steps"] == 30 and info["device"] == "cpu"
    assert info["final_loss"] < info["first_loss"]  # it learns the observation template
    predictions = model.predict([(TASK, e.code) for e in train[:3]])
    assert len(predictions) == 3
    assert all(p.outcome.label in ("Pass", "Syntax_Error", "Simulation_Mismatch") for p in predictions)
    assert all(0.0 <= p.confidence <= 1.0 for p in predictions)
    model.card.fingerprint = "f" * 64
    folder = model.save(tmp_path / "lm")
    assert (folder / "card.json").is_file() and (folder / "model" / "config.json").is_file()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    again = load_model(folder)
    assert again.name == model.name and again.name.startswith("lm-")
    assert [p.outcome.label for p in again.predict([(TASK, e.code) for e in train[:3]])] == [p.outcome.label for p in predictions]


def test_training_pairs_cap_identical_examples(tiny: Path) -> None:
    model = small(str(tiny), max_copies=2)
    pairs = model.pairs(examples(), TASKS)
    assert len(pairs) == 6  # 3 kinds x 4 copies, kept at most twice each
    prompt, target = pairs[0]
    assert prompt.endswith("## observation\n") and target.startswith("Label: Pass\n")


@pytest.mark.gpu
@pytest.mark.slow
def test_smollm2_world_model_fine_tunes_on_the_gpu(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU on this machine")
    model = LMWorldModel(steps=20, batch_size=8, lr=1e-4, max_prompt_tokens=384, max_new_tokens=32)
    model.fit(examples(), TASKS)
    assert model.training["device"].startswith("cuda")
    assert model.training["final_loss"] < model.training["first_loss"]
    assert model.predict([(TASK, REFERENCE)])[0].outcome.label in ("Pass", "Syntax_Error", "Simulation_Mismatch")
