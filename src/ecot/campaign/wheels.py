"""Wheels for the packages the device's Python 3.12 lacks, fetched here and installed there offline.

The versions are the ones installed beside this ecot (the ones its tests ran with). The device has no
network: `install` is pip with --no-index into a fresh target folder that the steps put on PYTHONPATH.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

# distributions ecot's steps import that the device image does not hold (its package list: KINDS.md of the
# device tool); typing-extensions because this pydantic needs a newer one than the image may have; openai
# because `ecot bench run` loads the synthesis loop, which imports it for its error types
MISSING_ON_DEVICE = (
    "pydantic", "pydantic-core", "annotated-types", "typing-inspection", "typing-extensions", "tomli-w",
    "trl", "datasets", "dill", "multiprocess", "gguf",
    "openai", "jiter", "sniffio", "httpx2", "httpcore2", "truststore",
)
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux1_x86_64")
PROBE = "ecot_campaign_probe"


def pinned() -> list[str]:
    """name==version for each missing distribution, at the version installed here."""
    pins = []
    for name in MISSING_ON_DEVICE:
        try:
            pins.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            raise RuntimeError(f"{name} is not installed here, so its tested version is unknown: "
                               "pip install -e '.[ml,test]' first") from None
    return pins


def download(dest: Path, python: str = "3.12") -> list[Path]:
    """The wheels for CPython `python` on manylinux x86-64, one per distribution, no dependencies."""
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--python-version", python, "--implementation", "cp", "-d", str(dest)]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    subprocess.run([*command, "--platform", "any", *pinned()], check=True)
    return sorted(dest.glob("*.whl"))


def install(wheels: Path, target: Path) -> str:
    """pip install every wheel of `wheels` into `target`, offline; returns pip's output."""
    files = sorted(str(p) for p in wheels.glob("*.whl"))
    if not files:
        return "no wheels to install"
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-compile",
                           "--no-cache-dir", "--upgrade", "--disable-pip-version-check", "--target", str(target), *files],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip could not install the carried wheels into {target}:\n{done.stdout}{done.stderr}")
    return f"installed {len(files)} wheels into {target}"


def write_probe(dest: Path) -> Path:
    """A minimal pure-Python wheel: the rehearsal installs it the device's way and imports it from there."""
    dest.mkdir(parents=True, exist_ok=True)
    info = f"{PROBE}-1.0.dist-info"
    files = {
        f"{PROBE}/__init__.py": b'"""Installed from a carried wheel by the GPU campaign\'s rehearsal."""\nCARRIED = True\n',
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {PROBE}\nVersion: 1.0\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: ecot\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    rows = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*rows, f"{info}/RECORD,,"]) + "\n").encode()
    path = dest / f"{PROBE}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return path


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
