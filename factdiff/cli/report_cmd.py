"""``factdiff report losses``: which fields summaries keep losing."""

from __future__ import annotations

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store_to_read, parse_time
from factdiff.cli.render import console, echo, echo_json, table, text
from factdiff.present.wording import plural


@click.group("report")
def report_group() -> None:
    """Reports: loss patterns (report losses) per schema version and summarizer."""


@report_group.command("losses")
@click.option("--schema", "schema_name", callback=not_blank, help="Only this schema NAME.")
@click.option("--agent", callback=not_blank, help="Only this agent's entries.")
@click.option("--since", help="Only attempts finished at or after this ISO time.")
@db_option
@json_option
def losses_command(
    schema_name: str | None, agent: str | None, since: str | None, db: str, as_json: bool
) -> None:
    """Per schema version and summarizer model: the fields most often missing, changed and
    added, with counts, rates and example entry ids."""
    from factdiff.ops.losses import loss_patterns

    start = None if since is None else parse_time(since, "--since")
    with open_store_to_read(db) as store:
        report = loss_patterns(store, schema=schema_name, agent=agent, since=start)
    if as_json:
        echo_json(report.to_json())
        return
    if not report.groups:
        echo("no verified attempts match")
        return
    out = console()
    for group in report.groups:
        title = (
            f"{group.schema} v{group.version} / {group.summarizer}: "
            f"{plural(group.attempts, 'attempt')}"
        )
        rows = table(
            "field",
            "missing",
            "changed",
            "added",
            "rate",
            "examples",
            title=title,
            right=("missing", "changed", "added", "rate"),
        )
        for item in group.fields:
            rows.add_row(
                text(item.field),
                text(item.missing),
                text(item.changed),
                text(item.added),
                text(f"{item.rate:.1%}"),
                text(" ".join(item.examples)),
            )
        out.print(rows)
