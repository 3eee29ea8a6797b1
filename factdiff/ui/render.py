"""Templates and assets of the pages: one autoescaping Jinja2 environment over the
package's ``templates/``, and the files of ``static/`` by name."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from factdiff.present.safe_text import visible
from factdiff.present.wording import percent, plural, signed_percent, usd

__all__ = ["HEADERS", "STATIC", "page", "static_bytes"]

STATIC = {
    "style.css": "text/css; charset=utf-8",
    "charts.js": "text/javascript; charset=utf-8",
}
"""Assets served under ``/ui/static/`` and their media types (nothing else is served)."""

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
"""Sent with every page: only the package's own script and stylesheet may run or load."""


@cache
def environment() -> Environment:
    """The pages' Jinja2 environment: autoescaping everything, undefined names are errors."""
    env = Environment(
        loader=PackageLoader("factdiff.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = visible
    env.filters["percent"] = percent
    env.filters["signed_percent"] = signed_percent
    env.filters["usd"] = usd
    env.filters["plural"] = plural
    return env


def page(template: str, context: Mapping[str, object]) -> str:
    """``template`` rendered with ``context``."""
    return environment().get_template(template).render(**context)


def static_bytes(name: str) -> bytes:
    """The content of the asset ``name`` (one of ``STATIC``)."""
    if name not in STATIC:
        raise KeyError(name)
    return (resources.files("factdiff.ui") / "static" / name).read_bytes()
