"""``factdiff demote`` and ``factdiff compress``."""

from __future__ import annotations

import sys
from datetime import datetime

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from factdiff.cli.inputs import read_text, resolve_schema
from factdiff.cli.options import db_option, json_option, not_blank, open_store, parse_time
from factdiff.cli.render import console, diff_table, echo, echo_json, outcome_line, table, text
from factdiff.cli.settings_options import (
    COMPONENT_KEYS,
    DEMOTION_KEYS,
    MODEL_KEYS,
    model_param_option,
    setting_options,
    settings_from,
)
from factdiff.compression.components import apply_provider_limits, components
from factdiff.compression.pipeline import compress
from factdiff.demotion.demoter import Demoter, DemotionReport, DemotionSettings
from factdiff.errors import DemotionPaused
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.present.wording import plural


@click.command("demote")
@click.option("--now", help="Treat this ISO time as now (default: the current time).")
@click.option("--agent", callback=not_blank, help="Only this agent.")
@click.option("--limit", type=click.IntRange(0, COUNT_MAX), help="At most this many entries.")
@setting_options(*COMPONENT_KEYS, *DEMOTION_KEYS, *MODEL_KEYS)
@model_param_option
@click.option("--dry-run", is_flag=True, help="List what would be attempted; change nothing.")
@db_option
@json_option
def demote_command(
    now: str | None,
    agent: str | None,
    limit: int | None,
    model_params: tuple[str, ...],
    dry_run: bool,
    db: str,
    as_json: bool,
    **options: object,
) -> None:
    """Compress dormant hot entries; only verified summaries reach the warm tier.

    Entries are claimed with a lease, so passes and workers running at once never attempt
    one entry twice. A provider outage spends no attempt; quota or credential failures pause
    the pass (exit 1, with the report so far).
    """
    moment = parse_time(now, "--now")
    settings = settings_from(options, model_params)
    demotion = DemotionSettings.from_settings(settings)
    concurrency = settings.demotion.concurrency or 1
    with open_store(db, create=False) as store:
        demoter = Demoter(store, demotion)
        if dry_run:
            _dry_run(demoter, moment, agent, limit, as_json)
            return
        total = sum(
            1
            for _ in store.due_for_demotion(
                moment, demotion.older_than, agent, limit, with_content=False
            )
        )
        with Progress(
            TextColumn("demoting"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console(),
            disable=as_json or not sys.stderr.isatty(),
            transient=True,
        ) as progress:
            task = progress.add_task("demote", total=total)
            try:
                report = demoter.run(
                    moment,
                    agent=agent,
                    limit=limit,
                    keep_results=False,
                    on_result=lambda _: progress.advance(task),
                    concurrency=concurrency,
                )
            except DemotionPaused as paused:
                if not isinstance(paused.report, DemotionReport):
                    raise
                report = paused.report
    if as_json:
        echo_json(report.to_json())
    else:
        print_report(report)
    if report.paused is not None:
        echo(f"error: {report.paused}", err=True)
        sys.exit(1)


def _dry_run(
    demoter: Demoter, moment: datetime, agent: str | None, limit: int | None, as_json: bool
) -> None:
    entries = demoter.store.due_for_demotion(
        moment, demoter.settings.older_than, agent, limit, with_content=False
    )
    due = [(e, demoter.catalog.name_for(e)) for e in entries]
    if as_json:
        echo_json(
            {
                "due": [
                    {"id": e.id, "agent": e.agent_id, "attempts": e.attempt_count, "schema": name}
                    for e, name in due
                ]
            }
        )
        return
    echo(f"{plural(len(due), 'entry', 'entries')} would be attempted")
    for e, name in due:
        echo(f"  {e.id}  {e.agent_id}  schema={name} attempt={e.attempt_count + 1}")


def print_report(report: DemotionReport) -> None:
    """The summary table at the end of a demotion pass."""
    title = f"demotion: {plural(report.processed, 'entry', 'entries')}"
    rows = table("result", "entries", title=title, right=("entries",))
    labels = {
        "clean": "demoted clean",
        "acceptable_with_notes": "demoted with notes",
        "failed": "failed, kept hot",
        "error": "errors (refused or no verified summary), kept hot",
        "escalated": "sent to operator review",
        "skipped": "skipped (already done elsewhere)",
    }
    for key, label in labels.items():
        if report.counts.get(key):
            rows.add_row(label, str(report.counts[key]))
    console().print(rows)
    if report.usage:
        usage = table(
            "model", "role", "calls", "tokens in", "tokens out", "cost USD", title="model calls"
        )
        for row in report.usage:
            usage.add_row(
                text(row["model"]),
                text(row["role"]),
                text(row["calls"]),
                text(row["tokens_in"]),
                text(row["tokens_out"]),
                text("unknown" if row["cost_usd"] is None else row["cost_usd"]),
            )
        console().print(usage)


@click.command("compress")
@click.argument("file")
@click.option(
    "--schema", "schema_option", callback=not_blank, help="YAML schema file or built-in name."
)
@setting_options(*COMPONENT_KEYS, *MODEL_KEYS)
@model_param_option
@json_option
def compress_command(
    file: str,
    schema_option: str | None,
    model_params: tuple[str, ...],
    as_json: bool,
    **options: object,
) -> None:
    """Run the whole pipeline with its retry ladder on FILE (no store).

    Exit 0 clean, 3 acceptable with notes, 1 failed on every rung, 2 usage or input error.
    """
    schema = resolve_schema(schema_option)
    settings = settings_from(options, model_params)
    chosen_extractor, rungs = components(settings)
    apply_provider_limits(settings.models)
    result = compress(read_text(file), schema, rungs, extractor=chosen_extractor)
    if as_json:
        echo_json(result.to_json())
    else:
        out = console()
        for attempt in result.attempts:
            out.print(
                Text.assemble(
                    (f"attempt {attempt.rung + 1}", "bold"),
                    ": ",
                    text(f"{attempt.summarizer}, {plural(attempt.budget_words, 'word')}"),
                )
            )
            out.print(text(attempt.summary))
            out.print(diff_table(attempt.diff))
            out.print(outcome_line(attempt.outcome, attempt.diff))
        out.print(f"final outcome: [bold]{result.outcome.value}[/]")
    sys.exit(result.outcome.exit_code)
