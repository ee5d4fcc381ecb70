"""Jinja2 templates and static assets of the report.

Autoescape is on for every template: all text from the store is escaped unless it is Markup made by
Pygments (which escapes the code itself). Data for the table's script goes through `tojson`, which
escapes <, >, & and ' so `</script>` inside a value cannot end the JSON block. Every page carries a
Content-Security-Policy that allows only the report's own files: no inline script runs and no
network request is made, whatever a value contains.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from ecot import __version__
from ecot.report.extras import headline
from ecot.report.highlight import stylesheet

PACKAGE = "ecot.report"
STATIC = ("report.css", "table.js")
ASSET_FOLDER = "assets"


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader(PACKAGE, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = _pct
    env.filters["num"] = _num
    env.filters["spread"] = _spread
    env.filters["headline"] = headline
    env.globals["version"] = __version__
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def assets() -> dict[str, bytes]:
    """Report-relative path -> bytes of the static files (CSS, the table's script, highlight CSS)."""
    folder = files(PACKAGE).joinpath("static")
    out = {f"{ASSET_FOLDER}/{name}": folder.joinpath(name).read_bytes() for name in STATIC}
    out[f"{ASSET_FOLDER}/highlight.css"] = stylesheet().encode("utf-8")
    return out


@lru_cache(maxsize=1)
def renderer_version() -> str:
    """A digest of the templates, static files and report code: a page rendered by another version of
    any of them is rendered again."""
    digest = hashlib.sha256(__version__.encode("utf-8"))
    root = files(PACKAGE)
    for sub in ("templates", "static", ""):
        folder = root.joinpath(sub) if sub else root
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.is_file() and entry.name.endswith((".html", ".css", ".js", ".py")):
                digest.update(entry.name.encode("utf-8") + b"\0" + entry.read_bytes())
    return digest.hexdigest()[:16]


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"


def _num(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.4f}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _spread(spread: Any, digits: int = 0) -> str:
    """median [P25-P75], as `ecot stats` prints it."""
    if spread is None:
        return "-"
    form = f"{{:.{digits}f}}"
    return f"{form.format(spread.median)} [{form.format(spread.p25)}-{form.format(spread.p75)}]"
