"""``factdiff reevaluate``: re-diff warm entries compressed under an older schema version."""

from __future__ import annotations

import sys

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from factdiff.cli.options import db_option, json_option, not_blank, open_store, parse_time
from factdiff.cli.render import console, echo, echo_json, table, text
from factdiff.demotion.reevaluation import ReevaluationReport, Reevaluator
from factdiff.inputs.bounds import VERSION_MAX
from factdiff.inputs.times import MAX_DURATION
from factdiff.present.wording import plural
from factdiff.settings import DEFAULTS
from factdiff.store.reevaluation import ReevaluationResult


@click.command("reevaluate")
@click.option("--schema", "schema_name", required=True, callback=not_blank, help="Schema NAME.")
@click.option(
    "--to-version",
    type=click.IntRange(1, VERSION_MAX),
    help="Re-evaluate under this registered version (default: the latest).",
)
@click.option("--agent", callback=not_blank, help="Only this agent's entries.")
@click.option(
    "--all",
    "include_all",
    is_flag=True,
    help="Every entry under an older version, even when the new one changes nothing material.",
)
@click.option("--dry-run", is_flag=True, help="Say what would happen; change nothing.")
@click.option(
    "--lease",
    type=click.FloatRange(min=0.001, max=MAX_DURATION),
    default=DEFAULTS.lease,
    show_default=True,
    help="Seconds an item stays leased to this run between heartbeats.",
)
@click.option("--now", help="Treat this ISO time as now (default: the current time).")
@db_option
@json_option
def reevaluate_command(
    schema_name: str,
    to_version: int | None,
    agent: str | None,
    include_all: bool,
    dry_run: bool,
    lease: float,
    now: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Re-evaluate warm entries compressed under an older version of --schema.

    Each entry's cold source (hash-checked) and warm narrative are extracted and diffed under
    the new version: failed entries go back to hot for recompression (events
    reevaluation_failed, promoted); acceptable ones get their known gaps updated, clean ones
    move to the new version (event reevaluated). Resumable: a rerun finishes what a crashed
    or interrupted run left, and changes nothing that was done.
    """
    moment = parse_time(now, "--now")
    with open_store(db, create=False) as store:
        reevaluator = Reevaluator(store, lease_seconds=lease)
        plan = reevaluator.plan(
            schema_name, moment, to_version=to_version, agent=agent, include_all=include_all
        )
        with Progress(
            TextColumn("re-evaluating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console(),
            disable=dry_run or as_json or not sys.stderr.isatty(),
            transient=True,
        ) as progress:
            task = progress.add_task("reevaluate", total=None)
            report = reevaluator.execute(
                plan,
                moment,
                agent=agent,
                dry_run=dry_run,
                on_start=lambda total: progress.update(task, total=total),
                on_item=lambda _: progress.advance(task),
            )
    if as_json:
        echo_json(report.to_json())
    else:
        print_report(report)


def print_report(report: ReevaluationReport) -> None:
    """The end report: entries per result, then the fields that caused them."""
    checked = report.checked
    verb = "would be" if report.dry_run else ("was" if checked == 1 else "were")
    entries = plural(checked, "entry", "entries")
    echo(
        f"{report.schema} v{report.to_version}: {entries} {verb} checked "
        f"({report.enqueued} newly queued)"
    )
    rows = table("result", "entries", right=("entries",))
    labels = {
        "failed: back to hot for recompression": report.counts[ReevaluationResult.PROMOTED],
        "acceptable: known gaps updated": report.counts[ReevaluationResult.ANNOTATED],
        "clean: moved to the new version": report.counts[ReevaluationResult.CLEAN],
        "skipped (no longer warm, or already re-evaluated)": report.counts[
            ReevaluationResult.SKIPPED
        ],
        "left for a rerun (lease lost or entry changed)": report.stale,
    }
    for label, count in labels.items():
        rows.add_row(label, str(count))
    console().print(rows)
    if report.pending:
        are = "is" if report.pending == 1 else "are"
        echo(
            f"{plural(report.pending, 'item')} {are} still pending: leased by another run or "
            "worker (a crashed run's leases expire after its --lease); run reevaluate again later"
        )
    if report.fields:
        fields = table("field", "promoted", "annotated", title="fields that caused it")
        for name, counts in report.ordered_fields():
            promoted, annotated = ReevaluationResult.PROMOTED, ReevaluationResult.ANNOTATED
            fields.add_row(text(name), str(counts[promoted]), str(counts[annotated]))
        console().print(fields)
