"""The parts of each device call, most valuable first.

Call 1, step 1-gpu: the GPU-only tests and the gpu domain's canaries on CUDA, the bundled references
timed, KernelBench references and torch.compile'd candidates (fast_p), inline CUDA built for real.
Call 2, step 2-sft: `ecot train sft` on the corpus, then the base and the trained model answer the
held-out prompts; step 3-world: the language-model world model trained on real turns, its held-out
predictions. Each call starts with a setup part (manifest, wheels, model part, probe of the machine).
Standard library only, like the runner.
"""

from __future__ import annotations

import gzip
import json
import shutil
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ecot.campaign import manifest, parts, wheels
from ecot.campaign.layout import (
    COMPILED,
    CORPUS,
    KERNELBENCH,
    PART,
    PROMPTS,
    STORE,
    WHEELS,
)
from ecot.campaign.runner import Context, Part, python

GPU, SFT, WORLD = "1-gpu", "2-sft", "3-world"
INSTALLED = ".installed"  # marker in the site folder: the sha256 of the wheel set it holds


def setup(context: Context) -> None:
    """Check the carry, install its wheels (once per machine), unpack the store, stage or join the model
    (last: a missing part 1 stops only the parts that need the model)."""
    found = manifest.check(context.carry)
    context.status["manifest"] = {"files": len(found["files"]), "total_bytes": found["total_bytes"]}
    install_wheels(context, found)
    hide_packages(context)
    if (context.carry / STORE).is_file():
        target = context.scratch / "data" / "store.db"
        target.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(context.carry / STORE, "rb") as source, target.open("wb") as out:
            shutil.copyfileobj(source, out)
    model = found.get("model")
    if model and context.call == 1:
        stash = context.scratch / "parts"
        stash.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(context.carry / PART.format(n=1), stash / PART.format(n=1))
        context.say(f"staged {PART.format(n=1)} in {stash} for the second call")
    if model and context.call == 2:
        try:
            join_model(context, model)
        except parts.PartError as err:  # the probe still runs; the parts that need the model say why they skip
            context.status["model_error"] = str(err)
            context.say(f"the model could not be joined: {err}")


def hide_packages(context: Context) -> None:
    """The rehearsal imports like the device: a package the device lacks fails to import here too."""
    for name in context.profile.hide:
        package = context.scratch / "hidden" / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(
            f"raise ImportError({name!r} + ' is not installed on the GPU machine (the rehearsal hides it)')\n", encoding="utf-8")


def install_wheels(context: Context, found: dict[str, Any]) -> None:
    site = context.scratch / "site"
    if not (context.carry / WHEELS).is_dir():  # call 2 carries none: it runs on the machine call 1 set up
        if not (site / INSTALLED).is_file():
            raise manifest.CarryError(f"the carried packages are not installed in {site}: this machine did not run "
                                      "the first call (rerun it, or `run --call 1 --stage-only`, then this call)")
        return
    signature = json.dumps(sorted(str(e["sha256"]) for e in found["files"] if str(e["path"]).startswith(WHEELS)))
    marker = site / INSTALLED
    if marker.is_file() and marker.read_text(encoding="utf-8") == signature:
        context.say(f"wheels already installed in {site}")
        return
    context.say(wheels.install(context.carry / WHEELS, site))
    marker.write_text(signature, encoding="utf-8")


def join_model(context: Context, model: dict[str, Any]) -> None:
    first = PART.format(n=1)
    staged = context.scratch / "parts" / first
    pieces = [staged if staged.is_file() else context.carry / first, context.carry / PART.format(n=2)]
    target = context.scratch / "model" / str(model["file"])
    if not (target.is_file() and target.stat().st_size == model["size"]):
        parts.join(model, pieces, target)
    parts.shim(target, context.scratch / "shim")
    context.status["model_ready"] = str(target)
    context.say(f"joined {model['file']} ({model['size']} bytes, sha256 checked); `--model smollm2` finds it")


def probe(context: Context) -> list[str]:
    imports = ",".join(manifest.load(context.carry).get("imports", []))
    return [python(), "-m", "ecot.campaign.probe", "--out", str(context.scratch / "environment.json"), "--imports", imports]


def record_environment(context: Context) -> None:
    path = context.scratch / "environment.json"
    if path.is_file():
        context.status["environment"] = json.loads(path.read_text(encoding="utf-8"))


def pytest(context: Context, selection: tuple[str, ...], report: str) -> list[str]:
    command = [python(), "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", "-o", "addopts=", "--timeout=90",
               f"--junitxml={context.work(GPU) / report}", *selection]
    if context.profile.device == "cuda" and find_spec("xdist") is not None:
        command += ["-n", "8"]  # 16 cores: eight tests at a time (correctness: the timing tests allow for company)
    return command


def ecot(*args: str) -> list[str]:
    return [python(), "-m", "ecot", *args]


def workers(context: Context, part: str) -> list[str]:
    return ["--workers", str(context.profile.workers.get(part, 1))]


def gpu_parts() -> list[Part]:
    return [
        Part("gpu-tests", GPU, lambda c: pytest(c, c.profile.pytest_gpu, "pytest-gpu.xml"), log="pytest-gpu.log"),
        Part("gpu-references", GPU, lambda c: ecot("eval", *c.profile.gpu_eval, *workers(c, "gpu-references"), "--quiet",
                                                   "--json", str(c.work(GPU) / "gpu-references.jsonl"))),
        Part("kernelbench-references", GPU, lambda c: ecot(
            "eval", str(c.carry / KERNELBENCH), *workers(c, "kernelbench-references"), "--quiet", "--json",
            str(c.work(GPU) / "kernelbench-references.jsonl"))),
        Part("kernelbench-compiled", GPU, lambda c: ecot(
            "bench", "run", str(c.carry / KERNELBENCH), "--generator", "replay", "--gen-opt", f"path={c.carry / COMPILED}",
            "--no-reference-check", "--label", "torch.compile", "--store", str(c.work(GPU) / "kernelbench-bench.db"),
            *workers(c, "kernelbench-compiled"), "--json", str(c.work(GPU) / "kernelbench-compiled.json"),
            "--progress-every", "15")),
        Part("inline-cuda", GPU, lambda c: pytest(c, c.profile.pytest_inline, "pytest-inline-cuda.xml"),
             log="pytest-inline-cuda.log"),
    ]


def train_command(context: Context) -> list[str]:
    t = context.profile.training
    return ecot("train", "sft", "--data", str(context.carry / CORPUS), "--out", str(context.work(SFT) / "sft"),
                "--model", "smollm2", "--device", context.profile.device, "--epochs", str(t.epochs), "--max-steps", str(t.max_steps),
                "--lr", str(t.learning_rate), "--batch-size", str(t.batch_size), "--grad-accum", str(t.grad_accum),
                "--max-length", str(t.max_length), "--save-steps", str(t.save_steps), "--time-limit", str(t.time_limit_s),
                "--seed", str(context.profile.seed))


def fresh_training(context: Context) -> None:
    shutil.rmtree(context.work(SFT) / "sft", ignore_errors=True)  # a rerun on a warm machine trains anew


def collect_training(context: Context) -> None:
    for name in ("train_summary.json", "loss.png"):
        source = context.work(SFT) / "sft" / name
        if source.is_file():
            shutil.copyfile(source, context.work(SFT) / name)


def generate_command(context: Context, model: str, label: str) -> list[str]:
    g = context.profile.generation
    work = context.work(SFT)
    return [python(), "-m", "ecot.campaign.generate", "--model", model, "--prompts", str(context.carry / PROMPTS),
            "--out", str(work / f"answers-{label}.jsonl"), "--meta", str(work / f"generation-{label}.json"),
            "--device", context.profile.device, "--samples", str(g.samples), "--temperature", str(g.temperature),
            "--top-p", str(g.top_p), "--max-new-tokens", str(g.max_new_tokens), "--batch-size", str(g.batch_size),
            "--seed", str(g.seed)]


def world_command(context: Context) -> list[str]:
    return [python(), "-m", "ecot.campaign.world", "--store", str(context.scratch / "data" / "store.db"),
            "--out", str(context.work(WORLD)), "--device", context.profile.device,
            "--options", json.dumps(context.profile.world), "--held-out", str(context.profile.world_held_out),
            "--seed", str(context.profile.seed)]


def model_needed(context: Context) -> str | None:
    if context.status.get("model_ready"):
        return None
    return f"no base model: {context.status.get('model_error') or 'the setup part did not join it'}"


def trained_needed(context: Context) -> str | None:
    done = (context.work(SFT) / "sft" / "model" / "config.json").is_file()
    return None if done else "no trained model (see the sft-train part)"


def call_parts(call: int) -> list[Part]:
    first = GPU if call == 1 else SFT
    setup_part = Part("setup", first, probe, log=None, before=setup, after=record_environment)
    if call == 1:
        return [setup_part, *gpu_parts()]
    return [
        setup_part,
        Part("sft-train", SFT, train_command, log="train.log", before=fresh_training, after=collect_training,
             needs=model_needed),
        Part("generate-base", SFT, lambda c: generate_command(c, "smollm2", "base"), needs=model_needed),
        Part("generate-trained", SFT, lambda c: generate_command(c, str(c.work(SFT) / "sft" / "model"), "trained"),
             needs=trained_needed),
        Part("world", WORLD, world_command, log="world.log", needs=model_needed),
    ]


def stage_only() -> list[Part]:
    """The retry path when the machine of call 1 is gone: stage part 1 again, nothing else."""
    return [Part("setup", GPU, probe, before=setup, after=record_environment)]


def carry_folder(root: Path, call: int) -> Path:
    return root / f"call{call}"
