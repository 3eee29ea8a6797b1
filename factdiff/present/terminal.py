"""Terminal rendering: the one console factory, literal text, folding tables and the fact-diff
table (used by the CLI and the demo).

Every string that came from a store, a file or an option reaches the screen through ``text`` (a
Rich ``Text``: never parsed as markup, controls made visible by ``factdiff.present.safe_text``);
markup templates hold only fixed words. Tables never cut a value: columns fold long values onto
further lines, and when the output is not a terminal (a pipe, a file) lines are never wrapped to
a terminal width at all.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from factdiff.present.safe_text import visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from factdiff.verify.diff import FactDiff
    from factdiff.verify.policy import Outcome

__all__ = ["PIPE_WIDTH", "console", "diff_table", "outcome_line", "table", "text"]

PIPE_WIDTH = 1_000_000
"""Console width when stdout is not a terminal: wide enough that no line is ever wrapped."""

VERDICT_STYLES = {
    "kept": "green",
    "missing": "bold red",
    "changed": "bold magenta",
    "added": "bold yellow",
    "absent": "dim",
}
OUTCOME_STYLES = {
    "clean": "bold green",
    "acceptable_with_notes": "bold yellow",
    "failed": "bold red",
}


def console(file: IO[str] | None = None) -> Console:
    """The one console of the CLI: no markup from data, no emoji codes, no colour off a terminal.

    Off a terminal (a pipe, a file, ``file``) lines are never wrapped to a width and table
    cells never fold: the console is ``PIPE_WIDTH`` wide whatever ``COLUMNS`` says, so every
    command's output comes out whole, one line per line. On a terminal it is as wide as the
    terminal and long cells fold (never cut).
    """
    from rich.console import Console

    if file is None:
        screen = Console(highlight=False, emoji=False, soft_wrap=False)
        if screen.is_terminal:
            return screen
    return Console(file=file, highlight=False, emoji=False, soft_wrap=False, width=PIPE_WIDTH)


def text(value: object, style: str = "") -> Text:
    """``value`` as a Rich ``Text``: shown literally, controls made visible."""
    from rich.text import Text

    return Text(visible("-" if value is None else value), style=style)


def table(*columns: str, title: str | None = None, right: tuple[str, ...] = ()) -> Table:
    """A table whose columns fold long values instead of cutting them, at least as wide as its
    title (so that a title is never wrapped off a terminal)."""
    from rich.table import Table

    caption = None if title is None else text(title)
    result = Table(
        title=caption,
        title_justify="left",
        min_width=None if caption is None else caption.cell_len,
    )
    for column in columns:
        result.add_column(column, overflow="fold", justify="right" if column in right else "left")
    return result


def diff_table(diff: FactDiff, title: str = "fact diff") -> Table:
    """Per field: criticality, source value, summary value, verdict."""
    result = table("field", "criticality", "source", "summary", "verdict", title=title)
    for row in diff.rows:
        verdict = row.verdict.value
        result.add_row(
            text(row.field),
            text(row.criticality.value),
            text(_cell(row.source_values)),
            text(_cell(row.summary_values)),
            text(verdict, VERDICT_STYLES.get(verdict, "")),
        )
    return result


def _cell(values: tuple[str, ...]) -> str:
    """Values one per line, whole (long ones fold in the table)."""
    return "\n".join(values) or "-"


def outcome_line(outcome: Outcome, diff: FactDiff) -> Text:
    """``outcome: failed (2 missing, 1 changed, 0 added)``, the outcome in its colour."""
    from rich.text import Text

    counts = f"{len(diff.missing)} missing, {len(diff.changed)} changed, {len(diff.added)} added"
    return Text.assemble(
        "outcome: ", (outcome.value, OUTCOME_STYLES.get(outcome.value, "")), f" ({counts})"
    )
