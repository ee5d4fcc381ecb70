"""Domain backends: one module per domain, registered here by name."""

from __future__ import annotations

from functools import lru_cache

from ecot.backends.base import Backend
from ecot.registry import Registry

BACKENDS: Registry[type[Backend]] = Registry(
    "backends",
    {
        "rtl": "ecot.backends.rtl:RtlBackend",
        "gpu": "ecot.backends.gpu:GpuBackend",
        "cad": "ecot.backends.cad:CadBackend",
        "asm": "ecot.backends.asm:AsmBackend",
        "python": "ecot.backends.python:PythonBackend",
        "firmware": "ecot.backends.firmware:FirmwareBackend",
    },
)


@lru_cache(maxsize=None)
def get_backend(domain: str) -> Backend:
    """One checked backend instance per domain and process (backends keep warm state)."""
    backend = BACKENDS.get(domain)()
    backend.check_tools()
    return backend


__all__ = ["BACKENDS", "Backend", "get_backend"]
