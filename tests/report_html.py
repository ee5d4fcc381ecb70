"""Reading generated report pages in tests, with the standard library's HTML parser."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any


class Page(HTMLParser):
    """Tags with their attributes, the text of every table by id, and the raw text of script elements."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text_parts: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._script: dict[str, str | None] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "table" and found.get("id"):
            self._table = str(found["id"])
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
        elif tag == "script":
            self._script = found
            self.scripts.append((found, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._table and self._cell is not None:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
            return
        self.text_parts.append(data)
        if self._cell is not None:
            self._cell.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def body_rows(self, table: str) -> list[list[str]]:
        return [row for row in self.tables[table][1:] if row]

    def table_data(self) -> dict[str, Any]:
        return json.loads(next(text for attrs, text in self.scripts if attrs.get("id") == "table-data"))


def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))
