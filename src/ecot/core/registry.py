"""Name -> implementation registries for plug-in points (backends, generators, world models, importers).

Built-ins are registered as lazy "module:attribute" strings, so nothing is imported until used;
third-party packages add their own through the entry-point group named by the registry.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar

from ecot.core.errors import UnknownNameError

T = TypeVar("T")


def load_reference(reference: str) -> Any:
    """The object a "module:attr" reference names, imported now."""
    module_name, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


class Registry(Generic[T]):
    def __init__(self, kind: str, builtins: dict[str, str]) -> None:
        self.kind = kind
        self._targets = dict(builtins)
        self._loaded: dict[str, T] = {}
        self._plugins_read = False

    def _read_plugins(self) -> None:
        if not self._plugins_read:
            from importlib.metadata import entry_points  # ~25 ms: only once a plug-in may be asked for

            self._plugins_read = True
            for ep in entry_points(group=f"ecot.{self.kind}"):
                self._targets.setdefault(ep.name, ep.value)

    def names(self) -> list[str]:
        self._read_plugins()
        return sorted(self._targets)

    def has(self, name: str) -> bool:
        """Whether a name is registered; entry points are read only for a name that is not built in."""
        if name not in self._targets:
            self._read_plugins()
        return name in self._targets

    def get(self, name: str) -> T:
        if name in self._loaded:
            return self._loaded[name]
        target = self._targets.get(name)
        if target is None:  # a built-in wins over a plug-in of its name, so only others need the scan
            self._read_plugins()
            target = self._targets.get(name)
        if target is None:
            known = ", ".join(self.names()) or "none"
            raise UnknownNameError(f"unknown {self.kind[:-1]} '{name}' (known: {known})")
        # The registry's type is a promise made by whoever registered the target; it is not checked here.
        value: T = load_reference(target)
        self._loaded[name] = value
        return value
