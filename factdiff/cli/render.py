"""Rendering shared by CLI commands: JSON output and the fact-diff table."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from factdiff.diff import FactDiff, Verdict
from factdiff.policy import Outcome
from factdiff.values.base import JSON

VERDICT_STYLES = {
    Verdict.KEPT: "green",
    Verdict.MISSING: "bold red",
    Verdict.CHANGED: "bold magenta",
    Verdict.ADDED: "bold yellow",
    Verdict.ABSENT: "dim",
}
OUTCOME_STYLES = {
    Outcome.CLEAN: "bold green",
    Outcome.ACCEPTABLE_WITH_NOTES: "bold yellow",
    Outcome.FAILED: "bold red",
}


def echo_json(data: JSON) -> None:
    """Print one JSON document (stable key order, UTF-8)."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def console() -> Console:
    """A console that keeps colours off when output is not a terminal."""
    return Console(highlight=False, soft_wrap=False)


def diff_table(diff: FactDiff, title: str = "fact diff") -> Table:
    """Per field: criticality, source value, summary value, verdict."""
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("field")
    table.add_column("criticality")
    table.add_column("source")
    table.add_column("summary")
    table.add_column("verdict")
    for row in diff.rows:
        style = VERDICT_STYLES[row.verdict]
        table.add_row(
            row.field,
            row.criticality.value,
            _cell(row.source_values),
            _cell(row.summary_values),
            f"[{style}]{row.verdict.value}[/]",
        )
    return table


def _cell(values: tuple[str, ...], limit: int = 48) -> str:
    """Values one per line, each cut to ``limit`` characters."""
    return "\n".join(v if len(v) <= limit else v[: limit - 1] + "…" for v in values) or "-"


def outcome_line(outcome: Outcome, diff: FactDiff) -> str:
    """``outcome: failed (2 missing, 1 changed, 0 added)`` with colour markup."""
    counts = f"{len(diff.missing)} missing, {len(diff.changed)} changed, {len(diff.added)} added"
    return f"outcome: [{OUTCOME_STYLES[outcome]}]{outcome.value}[/] ({counts})"
