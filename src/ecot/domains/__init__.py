"""Domain backends: one module per domain, registered here by name."""

from __future__ import annotations

from functools import lru_cache

from ecot.domains.base import Backend
from ecot.core.registry import Registry

BACKENDS: Registry[type[Backend]] = Registry(
    "backends",
    {
        "rtl": "ecot.domains.rtl.backend:RtlBackend",
        "gpu": "ecot.domains.gpu.backend:GpuBackend",
        "cad": "ecot.domains.cad.backend:CadBackend",
        "asm": "ecot.domains.asm.backend:AsmBackend",
        "python": "ecot.domains.python.backend:PythonBackend",
        "firmware": "ecot.domains.firmware.backend:FirmwareBackend",
    },
)


@lru_cache(maxsize=None)
def get_backend(domain: str) -> Backend:
    """One checked backend instance per domain and process (backends keep warm state)."""
    backend = BACKENDS.get(domain)()
    backend.check_tools()
    return backend


__all__ = ["BACKENDS", "Backend", "get_backend"]
