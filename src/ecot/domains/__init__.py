"""Domains: one package per domain, each with its descriptor (`domain.py`: DOMAIN), backend, helpers,
sandbox jobs, mutators and bundled suite.

A domain is found through its descriptor (ecot.core.domain.DOMAINS: the built-ins plus the
`ecot.domains` entry-point group), and its backend through the descriptor's `backend` reference.
The older `ecot.backends` group (name -> Backend class) is still read for backends without one.
"""

from __future__ import annotations

from functools import lru_cache

from ecot.core.domain import domain_names, find_domain
from ecot.core.registry import Registry
from ecot.domains.base import Backend


class BackendRegistry(Registry[type[Backend]]):
    """Backend classes by domain: a descriptor's backend first, else a legacy `ecot.backends` entry."""

    def names(self) -> list[str]:
        return sorted(set(domain_names()) | set(super().names()))

    def has(self, name: str) -> bool:
        return find_domain(name) is not None or super().has(name)

    def get(self, name: str) -> type[Backend]:
        domain = find_domain(name)
        if domain is None:
            return super().get(name)
        backend: type[Backend] = domain.load_backend()
        return backend


BACKENDS: BackendRegistry = BackendRegistry("backends", {})


@lru_cache(maxsize=None)
def get_backend(domain: str) -> Backend:
    """One checked backend instance per domain and process (backends keep warm state)."""
    backend = BACKENDS.get(domain)()
    backend.check_tools()
    return backend


__all__ = ["BACKENDS", "Backend", "BackendRegistry", "get_backend"]
