"""The default options model of a domain (kept apart from the descriptor so reading one loads no pydantic)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class NoOptions(BaseModel):
    """The options of a backend that takes none: any key is a typo."""

    model_config = ConfigDict(extra="forbid")
