"""``factdiff demote`` and ``factdiff compress``."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from factdiff.cli.inputs import read_text, resolve_schema
from factdiff.cli.options import (
    db_option,
    json_option,
    not_blank,
    open_store,
    parse_duration,
    parse_time,
)
from factdiff.cli.render import console, diff_table, echo, echo_json, outcome_line, text
from factdiff.config import pipeline_components
from factdiff.demote import Demoter, DemotionReport, DemotionSettings
from factdiff.errors import InputError
from factdiff.pipeline import compress
from factdiff.retry import RetryPolicy


def build_settings(
    older_than: str,
    components: tuple[str | None, str | None, str | None, bool],
    max_attempts: int | None,
    backoff: str,
) -> DemotionSettings:
    """Demotion settings from CLI options (extractor, summarizer, ladder, allow same model)."""
    extractor_flag, summarizer_flag, ladder_flag, allow_same = components
    extractor, rungs = pipeline_components(
        extractor=extractor_flag,
        summarizer=summarizer_flag,
        ladder=ladder_flag,
        allow_same_model=allow_same,
    )
    attempts = max_attempts if max_attempts is not None else len(rungs)
    return DemotionSettings(
        older_than=parse_duration(older_than, "--older-than"),
        ladder=rungs,
        extractor=extractor,
        retry=RetryPolicy(max_attempts=attempts, base_delay=parse_duration(backoff, "--backoff")),
    )


def component_options(function: Any) -> Any:
    """``--extractor``, ``--summarizer``, ``--ladder``, ``--allow-same-model``."""
    options = [
        click.option(
            "--extractor",
            callback=not_blank,
            help="rules, provider:model or jury:provider:model "
            "(default: FACTDIFF_EXTRACTOR, else rules).",
        ),
        click.option(
            "--summarizer",
            callback=not_blank,
            help="extractive, naive or provider:model for every rung "
            "(default: FACTDIFF_SUMMARIZER, else extractive).",
        ),
        click.option(
            "--ladder",
            callback=not_blank,
            help="Full retry ladder, e.g. 'extractive:0.35x,openai:gpt-4.1-mini:0.6x:strict'.",
        ),
        click.option(
            "--allow-same-model",
            is_flag=True,
            help="Allow the extractor and a summarizer to be the same model.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.command("demote")
@click.option("--now", help="Treat this ISO time as now (default: the current time).")
@click.option("--older-than", default="14d", show_default=True, help="Dormancy threshold.")
@click.option("--agent", callback=not_blank, help="Only this agent.")
@click.option("--limit", type=click.IntRange(min=0), help="At most this many entries.")
@component_options
@click.option(
    "--max-attempts",
    type=click.IntRange(min=1),
    help="Attempts before operator review (default: rungs).",
)
@click.option(
    "--backoff", default="1h", show_default=True, help="First retry delay (x4 per failure)."
)
@click.option(
    "--concurrency",
    type=int,
    default=1,
    show_default=True,
    help="Compressions in flight at once (asyncio; bounded per provider too).",
)
@click.option("--dry-run", is_flag=True, help="List what would be attempted; change nothing.")
@db_option
@json_option
def demote_command(
    now: str | None,
    older_than: str,
    agent: str | None,
    limit: int | None,
    extractor: str | None,
    summarizer: str | None,
    ladder: str | None,
    allow_same_model: bool,
    max_attempts: int | None,
    backoff: str,
    concurrency: int,
    dry_run: bool,
    db: str,
    as_json: bool,
) -> None:
    """Compress dormant hot entries; only verified summaries reach the warm tier."""
    moment = parse_time(now, "--now")
    if concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    settings = build_settings(
        older_than, (extractor, summarizer, ladder, allow_same_model), max_attempts, backoff
    )
    with open_store(db, create=False) as store:
        demoter = Demoter(store, settings)
        if dry_run:
            due: list[dict[str, Any]] = [
                {
                    "id": e.id,
                    "agent": e.agent_id,
                    "attempts": e.attempt_count,
                    "schema": demoter.catalog.name_for(e),
                }
                for e in store.due_for_demotion(
                    moment, settings.older_than, agent, limit, with_content=False
                )
            ]
            if as_json:
                echo_json({"due": due})
            else:
                echo(f"{len(due)} entries would be attempted")
                for item in due:
                    echo(
                        f"  {item['id']}  {item['agent']}  schema={item['schema']} "
                        f"attempt={item['attempts'] + 1}"
                    )
            return
        total = sum(
            1
            for _ in store.due_for_demotion(
                moment, settings.older_than, agent, limit, with_content=False
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
            if concurrency == 1:
                report = demoter.run(
                    moment,
                    agent=agent,
                    limit=limit,
                    keep_results=False,
                    on_result=lambda _: progress.advance(task),
                )
            else:
                report = demoter.run_concurrent(
                    moment,
                    concurrency,
                    agent=agent,
                    limit=limit,
                    keep_results=False,
                    on_result=lambda _: progress.advance(task),
                )
    if as_json:
        echo_json(report_json(report))
    else:
        print_report(report)


def report_json(report: DemotionReport) -> dict[str, Any]:
    """Counts per outcome and seconds per stage."""
    return {
        "processed": report.processed,
        "counts": dict(sorted(report.counts.items())),
        "seconds": {k: round(v, 3) for k, v in report.seconds.items()},
    }


def print_report(report: DemotionReport) -> None:
    """The summary table at the end of a demotion pass."""
    table = Table(title=f"demotion: {report.processed} entries", title_justify="left")
    table.add_column("result")
    table.add_column("entries", justify="right")
    labels = {
        "clean": "demoted clean",
        "acceptable_with_notes": "demoted with notes",
        "failed": "failed, kept hot",
        "error": "refused, kept hot",
        "escalated": "sent to operator review",
        "skipped": "skipped (already done elsewhere)",
    }
    for key, label in labels.items():
        if report.counts.get(key):
            table.add_row(label, str(report.counts[key]))
    console().print(table)


@click.command("compress")
@click.argument("file")
@click.option(
    "--schema", "schema_option", callback=not_blank, help="YAML schema file or built-in name."
)
@component_options
@json_option
def compress_command(
    file: str,
    schema_option: str | None,
    extractor: str | None,
    summarizer: str | None,
    ladder: str | None,
    allow_same_model: bool,
    as_json: bool,
) -> None:
    """Run the whole pipeline with its retry ladder on FILE (no store).

    Exit 0 clean, 3 acceptable with notes, 1 failed on every rung, 2 usage or input error.
    """
    schema = resolve_schema(schema_option)
    chosen_extractor, rungs = pipeline_components(
        extractor=extractor, summarizer=summarizer, ladder=ladder, allow_same_model=allow_same_model
    )
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
                    text(f"{attempt.summarizer}, {attempt.budget_words} words"),
                )
            )
            out.print(text(attempt.summary))
            out.print(diff_table(attempt.diff))
            out.print(outcome_line(attempt.outcome, attempt.diff))
        out.print(f"final outcome: [bold]{result.outcome.value}[/]")
    sys.exit(result.outcome.exit_code)
