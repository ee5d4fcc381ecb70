"""Task seeds and their environment bundles (immutable, serializable)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, cast


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed step of an evaluation."""

    wall_s: float = 20.0
    cpu_s: float = 20.0
    memory_mb: int = 2048
    output_kb: int = 1024
    file_mb: int = 64
    procs: int = 64
    disk_mb: int = 512  # all the job may write in its work dir (a tmpfs: it counts in memory)

    def scaled(self, **overrides: float) -> Limits:
        # replace() types each field separately (int or float); a float-typed mapping cannot say which is which
        return replace(self, **cast(dict[str, Any], overrides))

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Task:
    """One task seed: a prompt plus the environment bundle a backend needs to judge candidates.

    `files` holds the bundle (testbench, headers, linker scripts, tests...) by relative path;
    `reference` is a known-good solution, used by offline generators, the world model and
    conformance tests, never shown to the backend as the candidate's context.
    """

    id: str
    domain: str
    prompt: str
    files: Mapping[str, str] = field(default_factory=dict)
    reference: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "tags", tuple(self.tags))

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "domain": self.domain,
            "prompt": self.prompt,
            "files": dict(self.files),
            "reference": self.reference,
            "options": dict(self.options),
            "limits": self.limits.to_dict(),
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        return cls(
            id=data["id"],
            domain=data["domain"],
            prompt=data["prompt"],
            files=data.get("files", {}),
            reference=data.get("reference"),
            options=data.get("options", {}),
            limits=Limits(**data.get("limits", {})),
            tags=tuple(data.get("tags", ())),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # mapping proxies do not pickle; worker processes receive tasks as plain dicts
        return (Task.from_dict, (self.to_dict(),))

    def __hash__(self) -> int:
        return hash((self.id, self.domain))
