"""Where everything of the campaign lives, and the two profiles (the real run and the CPU rehearsal).

Carry folders (built by `prepare`, one per device call; each travels whole as one `carry` path):

    <carry>/call1/  manifest.json profile.json wheels/*.whl model.part1 kernelbench.jsonl kernelbench-compiled.jsonl
    <carry>/call2/  manifest.json profile.json model.part2 corpus/ heldout.jsonl prompts.jsonl store.db.gz

What comes back from $OUT (at most 8 files, each at most 16 MiB): per call a status file and a log,
and one archive per step, rewritten after each of its parts so that a run cut short returns what it did.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
CALL_LIMIT = 64 * MIB  # the working tree plus carried paths of one device call
RETURN_FILES = 8  # files back from $OUT
RETURN_FILE_LIMIT = 16 * MIB

CARRY_ROOT = Path("build/gpu-carry")  # ignored (/build/ in .gitignore): carried, never committed
DRY_CARRY_ROOT = Path("build/gpu-carry-dry")
WORK_ROOT = Path("build/gpu-campaign")  # prepare's store, corpus and the judge's results
CALLS = (1, 2)

MANIFEST = "manifest.json"
PROFILE = "profile.json"
WHEELS = "wheels"
PART = "model.part{n}"
KERNELBENCH = "kernelbench.jsonl"
COMPILED = "kernelbench-compiled.jsonl"
CORPUS = "corpus"
HELDOUT = "heldout.jsonl"
PROMPTS = "prompts.jsonl"
STORE = "store.db.gz"

# one archive per step, and the members each holds once the step has run in full
STEP_FILES: dict[str, tuple[str, ...]] = {
    "1-gpu": ("pytest-gpu.xml", "pytest-gpu.log", "gpu-references.jsonl", "kernelbench-references.jsonl",
              "kernelbench-bench.db", "kernelbench-compiled.json", "pytest-inline-cuda.xml", "pytest-inline-cuda.log"),
    "2-sft": ("train_summary.json", "loss.png", "train.log", "answers-base.jsonl", "answers-trained.jsonl",
              "generation-base.json", "generation-trained.json"),
    "3-world": ("lm-card.json", "fidelity.json", "predictions.jsonl", "world.log"),
}
CALL_STEPS = {1: ("1-gpu",), 2: ("2-sft", "3-world")}


def archive_name(step: str) -> str:
    return f"{step}.tar.gz"


def status_name(call: int) -> str:
    return f"call{call}.json"


def log_name(call: int) -> str:
    return f"call{call}.log"


def expected_outputs(call: int) -> list[str]:
    """The files one call leaves in $OUT when every step ran."""
    return [status_name(call), log_name(call), *(archive_name(step) for step in CALL_STEPS[call])]


@dataclass(frozen=True)
class Generation:
    samples: int = 4  # n per held-out prompt: pass@1 and pass@k from one run
    temperature: float = 0.7
    top_p: float = 0.95
    max_new_tokens: int = 2560  # the corpus's completions: median 1,493 tokens, 90% under 2,324
    batch_size: int = 512  # sequences decoded together (prompts x samples): every held-out prompt at once
    seed: int = 0


@dataclass(frozen=True)
class Training:
    epochs: float = 3.0
    max_steps: int = -1  # > 0: this many optimizer steps instead of epochs
    learning_rate: float = 5e-5
    batch_size: int = 8
    grad_accum: int = 1
    max_length: int = 4096
    time_limit_s: float = 90.0  # training stops here and saves what it has (the cosine schedule then unfinished)
    save_steps: int = 100000  # no checkpoints: the model is saved at the end, nothing resumes on the device


@dataclass(frozen=True)
class Profile:
    """Everything the device side needs to know besides the files: written to profile.json by prepare."""

    name: str = "real"
    device: str = "cuda"
    # each call's command, packing included: 11.5 minutes, the rest of 15 for the machine's start and transfers
    budget_s: dict[int, float] = field(default_factory=lambda: {1: 250.0, 2: 450.0})
    caps_s: dict[str, float] = field(default_factory=lambda: {
        "gpu-tests": 80, "gpu-references": 40, "kernelbench-references": 30, "kernelbench-compiled": 70,
        "inline-cuda": 90, "sft-train": 150, "generate-base": 85, "generate-trained": 85, "world": 90,
    })
    # evaluations at once on the one GPU: the timed KernelBench parts run few, so that the speedups are not
    # measured against a crowd; the bundled references more (they are 36, and correctness is their point)
    workers: dict[str, int] = field(default_factory=lambda: {
        "gpu-references": 8, "kernelbench-references": 2, "kernelbench-compiled": 3,
    })
    pytest_gpu: tuple[str, ...] = (
        "tests/test_gpu_device.py", "tests/conformance/test_gpu_hacks.py", "tests/conformance/test_gpu_bugs.py",
        "tests/conformance/test_gpu_hostile.py", "tests/conformance/hostile/test_hostile.py", "-k", "gpu and not inline_cuda",
    )
    pytest_inline: tuple[str, ...] = ("tests/test_gpu_device.py", "-k", "inline_cuda")
    gpu_eval: tuple[str, ...] = ("--domain", "gpu")
    compile_backend: str = "inductor"  # torch.compile backend of the compiled KernelBench candidates
    training: Training = field(default_factory=Training)
    generation: Generation = field(default_factory=Generation)
    world: dict[str, Any] = field(default_factory=lambda: {
        "steps": 400, "batch_size": 16, "lr": 1e-4, "max_prompt_tokens": 768, "max_new_tokens": 96, "predict_batch": 64,
    })
    world_held_out: float = 0.2
    seed: int = 0
    hide: tuple[str, ...] = ()  # packages the steps must not import: installed here, absent on the device

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Profile:
        data = json.loads(text)
        data["budget_s"] = {int(k): float(v) for k, v in data["budget_s"].items()}
        data["training"] = Training(**data["training"])
        data["generation"] = Generation(**data["generation"])
        data["workers"] = {str(k): int(v) for k, v in data["workers"].items()}
        for key in ("pytest_gpu", "pytest_inline", "gpu_eval", "hide"):
            data[key] = tuple(data[key])
        return cls(**data)


REAL = Profile()
DRY = Profile(
    name="dry", device="cpu",
    budget_s={1: 240.0, 2: 240.0},
    # generous: a loaded CI machine must not cut the rehearsal; the test holds its total to 5 minutes
    caps_s={"gpu-tests": 90, "gpu-references": 90, "kernelbench-references": 90, "kernelbench-compiled": 90,
            "inline-cuda": 60, "sft-train": 150, "generate-base": 90, "generate-trained": 90, "world": 90},
    workers={"gpu-references": 2, "kernelbench-references": 2, "kernelbench-compiled": 2},
    pytest_gpu=("tests/test_gpu_device.py", "-k", "not inline_cuda"),
    gpu_eval=("--domain", "gpu", "--limit", "1"),
    compile_backend="eager",  # dynamo traces the module, no C++ build: seconds on a CPU
    training=Training(max_steps=2, learning_rate=1e-3, batch_size=1, grad_accum=1, max_length=4096, time_limit_s=60.0),
    generation=Generation(samples=2, max_new_tokens=24, batch_size=8),
    world={"steps": 4, "batch_size": 2, "lr": 1e-3, "max_prompt_tokens": 128, "max_new_tokens": 16, "predict_batch": 8},
    hide=("ray", "cadquery"),  # ecot's dependencies that the device's image lacks and the campaign does not carry
)
