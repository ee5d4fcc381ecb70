"""Domain backends: one module per domain, registered here by name."""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from importlib import import_module

from ecot.domains.base import Backend, DomainOptions, FreeOptions
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


# each built-in domain's option model, imported only when asked for (the modules are light: pydantic only)
OPTION_MODELS: dict[str, str] = {
    "rtl": "ecot.domains.rtl.options:RtlOptions",
    "gpu": "ecot.domains.gpu.options:GpuOptions",
    "cad": "ecot.domains.cad.options:CadOptions",
    "asm": "ecot.domains.asm.options:AsmOptions",
    "python": "ecot.domains.python.options:PythonOptions",
    "firmware": "ecot.domains.firmware.options:FirmwareOptions",
}


@lru_cache(maxsize=None)
def options_model(domain: str) -> type[DomainOptions]:
    """The model of a domain's task [options]: a built-in one, else the registered backend's
    `options_model`, else FreeOptions (a domain nobody registered is checked only by its backend)."""
    if domain in OPTION_MODELS:
        module, _, name = OPTION_MODELS[domain].partition(":")
        model: type[DomainOptions] = getattr(import_module(module), name)
        return model
    if domain in BACKENDS.names():
        return BACKENDS.get(domain).options_model
    return FreeOptions


# keyed by process too: a forked child must not share its parent's warm interpreters (their pipes)
_backends: dict[tuple[int, str], Backend] = {}
_backends_lock = threading.Lock()


def get_backend(domain: str) -> Backend:
    """This process's checked and prepared backend for a domain (backends keep warm state); the
    process closes it with close_backends()."""
    with _backends_lock:
        key = (os.getpid(), domain)
        backend = _backends.get(key)
        if backend is None:
            backend = BACKENDS.get(domain)()
            backend.check_tools()
            backend.prepare()
            _backends[key] = backend
        return backend


def close_backends() -> None:
    """Close every backend get_backend handed out in this process; the next get_backend prepares anew."""
    with _backends_lock:
        mine = [key for key in _backends if key[0] == os.getpid()]
        backends = [_backends.pop(key) for key in mine]
    for backend in backends:
        backend.close()


__all__ = ["BACKENDS", "Backend", "DomainOptions", "close_backends", "get_backend", "options_model"]
