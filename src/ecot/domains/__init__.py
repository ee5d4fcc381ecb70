"""Domains: one package per domain, each with its descriptor (`domain.py`: DOMAIN), backend, helpers,
sandbox jobs, mutators and bundled suite.

A domain is found through its descriptor (ecot.core.domain.DOMAINS: the built-ins plus the
`ecot.domains` entry-point group), and its backend through the descriptor's `backend` reference.
The older `ecot.backends` group (name -> Backend class) is still read for backends without one;
such a backend runs, but has no label set (its labels live in a descriptor, as every domain's do).
"""

from __future__ import annotations

import os
import threading
from functools import cache
from typing import Any

from pydantic import BaseModel

from ecot.core.domain import NO_OPTIONS, DescribedRegistry, find_domain
from ecot.domains.base import Backend, DomainOptions, FreeOptions

BACKENDS: DescribedRegistry[type[Backend[Any]]] = DescribedRegistry("backends", "backend")


@cache
def options_model(domain: str) -> type[BaseModel]:
    """The model of a domain's task [options]: the descriptor's `options`, else the model its backend
    declares (`Backend.options_model`), else the descriptor's default (no options at all); FreeOptions
    for a domain nobody registered (its backend, if one appears, checks what it reads)."""
    described = find_domain(domain)
    if described is not None and described.options != NO_OPTIONS:
        return described.options_model()
    if BACKENDS.has(domain):
        declared = BACKENDS.get(domain).options_model
        if declared is not FreeOptions:
            return declared
    return described.options_model() if described is not None else FreeOptions


# keyed by process too: a forked child must not share its parent's warm interpreters (their pipes)
_backends: dict[tuple[int, str], Backend[Any]] = {}
_backends_lock = threading.Lock()  # guards the two tables, never held while a backend prepares
_preparing: dict[tuple[int, str], threading.Lock] = {}  # one per domain: cad's start must not hold up rtl


def get_backend(domain: str) -> Backend[Any]:
    """This process's checked and prepared backend for a domain (backends keep warm state); the
    process closes it with close_backends()."""
    key = (os.getpid(), domain)
    with _backends_lock:
        backend = _backends.get(key)
        if backend is not None:
            return backend
        preparing = _preparing.setdefault(key, threading.Lock())
    with preparing:
        with _backends_lock:
            backend = _backends.get(key)
        if backend is None:  # the first caller prepares; others of this domain wait for it
            backend = BACKENDS.get(domain)()
            backend.check_tools()
            backend.prepare()
            with _backends_lock:
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
