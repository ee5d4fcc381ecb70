"""`prepare`: build the two carry folders, each under what one device call takes, with its manifest.

call1/: wheels, model part 1, the KernelBench subset with its torch.compile'd candidates.
call2/: model part 2, the corpus (split by task), the held-out suite and its prompts, the store.
The rehearsal (`--dry-run`) builds the same layout from a small corpus, a two-task KernelBench subset,
a tiny model shaped like SmolLM2 and one wheel made on the spot (no network needed).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecot.campaign import corpus, kernelbench, manifest, parts, wheels
from ecot.campaign.corpus import CorpusPlan
from ecot.campaign.layout import (
    CALL_LIMIT,
    COMPILED,
    CORPUS,
    DRY,
    DRY_CARRY_ROOT,
    HELDOUT,
    KERNELBENCH,
    MIB,
    PART,
    PROFILE,
    PROMPTS,
    REAL,
    STORE,
    WHEELS,
    WORK_ROOT,
    Profile,
)
from ecot.campaign.steps import carry_folder

# the carried packages' modules: the probe imports each from the installed wheels before any step needs it
DEVICE_IMPORTS = ("pydantic", "pydantic_core", "tomli_w", "trl", "datasets", "dill", "multiprocess", "gguf", "openai")
RESERVE = 64 * 1024  # the manifest and profile written after the split
DRY_PLAN = CorpusPlan(domains=("python",), limit=6, samples=1, validation=0.34)


@dataclass(frozen=True)
class PrepareSettings:
    repo: Path
    carry: Path
    work: Path
    kernelbench_root: Path
    profile: Profile = REAL
    plan: CorpusPlan = CorpusPlan()
    dry: bool = False

    @classmethod
    def default(cls, repo: Path, dry: bool) -> PrepareSettings:
        shared = Path(os.environ.get("ECOT_KERNELBENCH_DIR") or repo.parent / "shared" / "data" / "kernelbench")
        if dry:
            return cls(repo, repo / DRY_CARRY_ROOT, repo / WORK_ROOT / "dry", shared, DRY, DRY_PLAN, True)
        return cls(repo, repo / "build" / "gpu-carry", repo / WORK_ROOT, shared)


def prepare(settings: PrepareSettings, say: Any = print) -> dict[int, dict[str, Any]]:
    """Build both carry folders from scratch (the store and corpus in `work` are reused: synth resumes)."""
    folders = {call: carry_folder(settings.carry, call) for call in (1, 2)}
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    extra = {2: second_call_data(settings, folders[2], say), 1: first_call_data(settings, folders[1], say)}
    add_wheels(settings, folders, say)
    model = model_parts(settings, folders, say)
    imports = [wheels.PROBE] if settings.dry else list(DEVICE_IMPORTS)
    built = {}
    for call, folder in folders.items():
        (folder / PROFILE).write_text(settings.profile.to_json(), encoding="utf-8")
        built[call] = manifest.build(folder, call, settings.repo, {"model": model, "imports": imports,
                                                                   "profile": settings.profile.name, **extra[call]})
        say(f"call {call}: {folder} {built[call]['carry_bytes'] / MIB:.1f} MiB carried + checkout "
            f"{built[call]['checkout_bytes'] / MIB:.1f} MiB = {built[call]['total_bytes'] / MIB:.1f} MiB "
            f"(limit {CALL_LIMIT // MIB} MiB)")
    return built


def second_call_data(settings: PrepareSettings, folder: Path, say: Any) -> dict[str, Any]:
    plan, work = settings.plan, settings.work
    store = work / "ecot.db"
    say(f"corpus: ecot synth --generator repair --samples {plan.samples} into {store} (resumes)")
    corpus.synthesize(plan, store)
    held = corpus.held_out(plan)
    sizes = corpus.export(plan, store, work / "corpus")
    corpus.check_split(work / "corpus", held)
    say(f"corpus: train {sizes['train']}, validation {sizes['validation']}; {len(held)} held-out tasks")
    repairs = corpus.repair_items(plan, held, work)
    corpus.write_heldout([*held, *repairs], folder / HELDOUT, folder / PROMPTS)
    corpus.copy_corpus(work / "corpus", folder / CORPUS)
    corpus.pack_store(store, folder / STORE)
    return {"corpus": sizes, "heldout": {"tasks": len(held), "repair_items": len(repairs),
                                         "task_ids": sorted(t.id for t in held)}}


def first_call_data(settings: PrepareSettings, folder: Path, say: Any) -> dict[str, Any]:
    names: dict[str, tuple[str, ...]] = kernelbench.DRY_SUBSET if settings.dry else kernelbench.SUBSET
    tasks = kernelbench.subset(settings.kernelbench_root, names)
    kernelbench.write(tasks, folder / KERNELBENCH, folder / COMPILED, settings.profile.compile_backend)
    say(f"kernelbench: {len(tasks)} tasks, candidates compiled with torch.compile(backend={settings.profile.compile_backend!r})")
    return {"kernelbench": [t.id for t in tasks]}


def model_parts(settings: PrepareSettings, folders: dict[int, Path], say: Any) -> dict[str, Any]:
    from ecot.generators.hf_local import embedded_gguf

    source = embedded_gguf()
    if settings.dry:
        from ecot.campaign.tinymodel import NAME, write_tiny_gguf

        settings.work.mkdir(parents=True, exist_ok=True)
        source = write_tiny_gguf(source, settings.work / NAME)
    checkout = manifest.checkout_bytes(settings.repo)
    room = [CALL_LIMIT - checkout - sum(p.stat().st_size for p in manifest.files_of(folders[call])) - RESERVE
            for call in (1, 2)]
    entry = parts.split(source, [folders[call] / PART.format(n=call) for call in (1, 2)], room)
    shown = " + ".join(f"{p['size'] / MIB:.1f}" for p in entry["parts"])
    say(f"model: {source.name} ({entry['size'] / MIB:.1f} MiB) in 2 parts ({shown} MiB: each call keeps the same margin)")
    return entry


def add_wheels(settings: PrepareSettings, folders: dict[int, Path], say: Any) -> None:
    """Into call 1 only: call 2 needs the machine call 1 left (its model half), and with it the installed wheels."""
    first = folders[1] / WHEELS
    if settings.dry:
        wheels.write_probe(first)
    else:
        wheels.download(first)
    found = sorted(first.glob("*.whl"))
    say(f"wheels: {len(found)} ({sum(p.stat().st_size for p in found) / MIB:.1f} MiB): "
        + ", ".join(p.name.split("-")[0] for p in found))
