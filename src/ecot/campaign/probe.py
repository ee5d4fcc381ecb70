"""What the machine offers, written as JSON: Python, the carried packages (each imported), torch and the GPU.

    python -m ecot.campaign.probe --out environment.json --imports pydantic,trl,datasets,gguf
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

PREINSTALLED = ("torch", "transformers", "peft", "accelerate", "triton", "numpy", "tokenizers", "safetensors", "pyarrow",
                "huggingface-hub", "fsspec", "pytest", "pytest-xdist", "rich", "jinja2")


def installed(names: tuple[str, ...]) -> dict[str, str]:
    """Versions from the packages' metadata, without importing them (an import of each costs seconds)."""
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def packages(names: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in names:
        try:
            module = importlib.import_module(name)
            found[name] = str(getattr(module, "__version__", "") or _distribution_version(name))
        except Exception as err:  # any failure to import is what the probe reports
            found[name] = f"NOT IMPORTABLE: {type(err).__name__}: {err}"
    return found


def _distribution_version(name: str) -> str:
    try:
        return metadata.version(name.replace("_", "-"))
    except metadata.PackageNotFoundError:
        return "imported"


def accelerator() -> dict[str, Any]:
    try:
        import torch
    except ImportError as err:
        return {"torch": f"NOT IMPORTABLE: {err}"}
    info: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.cuda.is_available(), "cuda_version": torch.version.cuda}
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(gpu=props.name, memory_gib=round(props.total_memory / 2**30, 1), capability=f"{props.major}.{props.minor}",
                    multiprocessors=props.multi_processor_count, bf16=torch.cuda.is_bf16_supported())
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ecot.campaign.probe")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--imports", default="", help="comma-separated modules that must import")
    args = parser.parse_args(argv)
    wanted = [name for name in args.imports.split(",") if name]
    report = {"python": sys.version.split()[0], "platform": platform.platform(), "packages": packages(wanted),
              "preinstalled": installed(PREINSTALLED), **accelerator()}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report))
    broken = [name for name, version in report["packages"].items() if version.startswith("NOT IMPORTABLE")]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
