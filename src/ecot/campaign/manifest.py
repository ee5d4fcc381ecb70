"""The manifest of a carry folder: every file with its size and sha256, and the call's total size.

A device call carries the working tree (tracked files and untracked files git does not ignore) plus the
carried paths, 64 MiB in all; `build` counts both and refuses a folder that would not fit. On the device
`check` verifies every file before a step reads it, so a truncated transfer is named, not trained on.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from ecot.campaign.layout import CALL_LIMIT, MANIFEST, MIB


class CarryError(RuntimeError):
    """A carry folder that is too big, incomplete or damaged."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checkout_bytes(repo: Path) -> int:
    """What a device call sends besides the carry: tracked files and untracked files git does not ignore."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                            capture_output=True, check=True).stdout.decode("utf-8", "replace")
    total = 0
    for name in filter(None, listed.split("\0")):
        path = repo / name
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def files_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


def build(folder: Path, call: int, repo: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write `folder/manifest.json`; raises CarryError when the call would exceed the limit."""
    entries = [{"path": str(p.relative_to(folder)), "size": p.stat().st_size, "sha256": sha256(p)} for p in files_of(folder)]
    carry = sum(p.stat().st_size for p in files_of(folder))
    checkout = checkout_bytes(repo)
    manifest = {"call": call, "files": entries, "carry_bytes": carry, "checkout_bytes": checkout,
                "total_bytes": carry + checkout, "limit_bytes": CALL_LIMIT, **(extra or {})}
    # the manifest itself travels too: a few kilobytes, counted with a margin
    if carry + checkout + 64 * 1024 > CALL_LIMIT:
        raise CarryError(f"call {call} would carry {(carry + checkout) / MIB:.1f} MiB (checkout {checkout / MIB:.1f} MiB + "
                         f"{folder} {carry / MIB:.1f} MiB), over the {CALL_LIMIT // MIB} MiB a device call takes")
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def load(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CarryError(f"{path}: no readable manifest ({err}); run `scripts/gpu_campaign.sh prepare` first") from None
    return data


def check(folder: Path) -> dict[str, Any]:
    """The manifest, once every file it lists is there with its size and hash; CarryError names the first bad one."""
    manifest = load(folder)
    for entry in manifest["files"]:
        path = folder / entry["path"]
        if not path.is_file():
            raise CarryError(f"{path}: listed in the manifest but missing")
        if path.stat().st_size != entry["size"] or sha256(path) != entry["sha256"]:
            raise CarryError(f"{path}: size or sha256 differs from the manifest (a damaged or partial transfer)")
    return manifest
