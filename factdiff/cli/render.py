"""Output shared by CLI commands: JSON documents and plain lines, plus the terminal rendering
of ``factdiff.present.terminal`` (the console, literal text, tables, the fact-diff table).

Plain lines go through ``echo`` (controls made visible); JSON through ``echo_json``.
"""

from __future__ import annotations

import json

import click

from factdiff.present.safe_text import one_line, visible
from factdiff.present.terminal import console, diff_table, outcome_line, table, text

__all__ = [
    "console",
    "diff_table",
    "echo",
    "echo_json",
    "one_line",
    "outcome_line",
    "table",
    "text",
    "visible",
]


def echo_json(data: object) -> None:
    """Print one JSON document (stable key order, UTF-8; controls escaped by JSON itself)."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def echo(message: object, *, err: bool = False) -> None:
    """Print a plain line whose parts may hold stored or user text (controls made visible)."""
    click.echo(visible(message), err=err)
