"""Store commands: add, list, show, touch, restore, events, stats, migrate, verify, review."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click
from rich.table import Table

from factdiff.catalog import SchemaCatalog
from factdiff.cli.inputs import read_text
from factdiff.cli.options import db_option, json_option, open_store, parse_time
from factdiff.cli.render import console, echo_json
from factdiff.errors import InputError
from factdiff.store import Entry, EventType, Tier


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as JSON (content or warm view included when loaded)."""
    data: dict[str, Any] = {
        "id": entry.id,
        "agent_id": entry.agent_id,
        "tier": entry.tier.value,
        "status": entry.status.value,
        "occurred_at": entry.occurred_at.isoformat() if entry.occurred_at else None,
        "created_at": entry.created_at.isoformat(),
        "last_used_at": entry.last_used_at.isoformat(),
        "schema": entry.schema_name,
        "tags": list(entry.tags),
        "metadata": entry.metadata,
        "content_hash": entry.content_hash,
        "size_bytes": entry.size_bytes,
        "attempt_count": entry.attempt_count,
        "next_attempt_at": entry.next_attempt_at.isoformat() if entry.next_attempt_at else None,
    }
    if entry.content is not None:
        data["content"] = entry.content
    if entry.warm is not None:
        data["warm"] = {
            "narrative": entry.warm.narrative,
            "record": entry.warm.record,
            "meta": entry.warm.meta.to_json(),
        }
    return data


@click.command("add")
@click.argument("file")
@click.option("--agent", required=True, help="The agent this memory belongs to.")
@click.option(
    "--occurred-at",
    help="When it happened (ISO): resolves relative dates and starts the dormancy clock.",
)
@click.option("--schema", "schema_name", help="Fact schema name (default: the agent's).")
@click.option("--tag", "tags", multiple=True, help="Capability tag (repeatable).")
@click.option("--metadata", help="JSON object of metadata.")
@db_option
def add_command(
    file: str,
    agent: str,
    occurred_at: str | None,
    schema_name: str | None,
    tags: tuple[str, ...],
    metadata: str | None,
    db: str,
) -> None:
    """Add FILE (or - for stdin) as a hot entry; print its id."""
    now = datetime.now(UTC)
    meta: dict[str, Any] = {}
    if metadata is not None:
        try:
            meta = json.loads(metadata)
        except json.JSONDecodeError as exc:
            raise InputError(f"--metadata is not JSON: {exc.msg}") from None
        if not isinstance(meta, dict):
            raise InputError("--metadata must be a JSON object")
    content = read_text(file)
    occurred = parse_time(occurred_at, "--occurred-at") if occurred_at else None
    with open_store(db) as store:
        if schema_name is not None:
            SchemaCatalog(store).get(schema_name, now)
        entry_id = store.add(
            agent,
            content,
            now=now,
            occurred_at=occurred,
            last_used_at=min(occurred, now) if occurred else None,
            metadata=meta,
            schema=schema_name,
            tags=tags,
        )
    click.echo(entry_id)


@click.command("list")
@click.option("--agent", help="Only this agent.")
@click.option(
    "--tier", type=click.Choice([Tier.HOT.value, Tier.WARM.value]), help="Only this tier."
)
@click.option("--limit", type=int, default=100, show_default=True)
@db_option
@json_option
def list_command(agent: str | None, tier: str | None, limit: int, db: str, as_json: bool) -> None:
    """List entries by agent and tier."""
    with open_store(db, create=False) as store:
        entries = list(
            store.entries(
                agent=agent, tier=Tier(tier) if tier else None, limit=limit, with_content=False
            )
        )
    if as_json:
        echo_json([entry_json(e) for e in entries])
        return
    table = Table(title_justify="left")
    for column in ("id", "agent", "tier", "status", "attempts", "last used", "bytes"):
        table.add_column(column)
    for e in entries:
        table.add_row(
            e.id,
            e.agent_id,
            e.tier.value,
            e.status.value,
            str(e.attempt_count),
            e.last_used_at.isoformat(timespec="minutes"),
            str(e.size_bytes),
        )
    console().print(table)


@click.command("show")
@click.argument("entry_id")
@db_option
@json_option
def show_command(entry_id: str, db: str, as_json: bool) -> None:
    """Show an entry: its tier content, compression history and events."""
    with open_store(db, create=False) as store:
        entry = store.get(entry_id)
        attempts = store.attempts(entry_id)
        events = list(store.events(entry_id))
    if as_json:
        echo_json(
            {
                "entry": entry_json(entry),
                "attempts": [_attempt_json(a) for a in attempts],
                "events": [_event_json(e) for e in events],
            }
        )
        return
    out = console()
    out.print(
        f"[bold]{entry.id}[/] agent={entry.agent_id} tier={entry.tier.value} "
        f"status={entry.status.value} attempts={entry.attempt_count}"
    )
    if entry.content is not None:
        out.print("[bold]hot source:[/]", entry.content, markup=True, highlight=False)
    if entry.warm is not None:
        out.print("[bold]warm narrative:[/]", entry.warm.narrative)
        lost = entry.warm.meta.lost_important_fields
        out.print(f"known gaps: {', '.join(lost) if lost else 'none'}")
        out.print(f"meta: {json.dumps(entry.warm.meta.to_json(), sort_keys=True)}")
    table = Table(title="compression history", title_justify="left")
    for column in ("#", "rung", "summarizer", "outcome", "missing", "changed", "added"):
        table.add_column(column)
    for a in attempts:
        table.add_row(
            str(a.attempt_no),
            str(a.rung),
            a.summarizer,
            a.outcome.value,
            *(
                ", ".join(str(i.get("field")) for i in a.diff.get(k, [])) or "-"
                for k in ("missing", "changed", "added")
            ),
        )
    out.print(table)
    for event in events:
        out.print(f"{event.at.isoformat()}  {event.type.value}")


def _attempt_json(attempt: Any) -> dict[str, Any]:
    return {
        "attempt_no": attempt.attempt_no,
        "rung": attempt.rung,
        "summarizer": attempt.summarizer,
        "extractor": attempt.extractor,
        "method_version": attempt.method_version,
        "outcome": attempt.outcome.value,
        "budget_words": attempt.budget_words,
        "summary": attempt.summary,
        "diff": attempt.diff,
        "duration_ms": attempt.duration_ms,
        "tokens_in": attempt.tokens_in,
        "tokens_out": attempt.tokens_out,
        "cost_usd": str(attempt.cost_usd) if attempt.cost_usd is not None else None,
        "error": attempt.error,
        "started_at": attempt.started_at.isoformat(),
    }


def _event_json(event: Any) -> dict[str, Any]:
    return {
        "id": event.id,
        "type": event.type.value,
        "entry_id": event.entry_id,
        "agent_id": event.agent_id,
        "at": event.at.isoformat(),
        "payload": event.payload,
    }


@click.command("touch")
@click.argument("entry_id")
@db_option
def touch_command(entry_id: str, db: str) -> None:
    """Mark an entry as used now (resets its dormancy clock)."""
    with open_store(db, create=False) as store:
        store.touch(entry_id, datetime.now(UTC))
    click.echo(f"touched {entry_id}")


@click.command("restore")
@click.argument("entry_id")
@db_option
def restore_command(entry_id: str, db: str) -> None:
    """Bring an entry's archived source back from cold to hot (hash-checked)."""
    with open_store(db, create=False) as store:
        store.restore(entry_id, datetime.now(UTC))
    click.echo(f"restored {entry_id} to hot")


@click.command("events")
@click.option("--type", "event_type", type=click.Choice([t.value for t in EventType]))
@click.option("--entry", "entry_id", help="Only this entry.")
@click.option("--agent", help="Only this agent.")
@click.option("--since", help="From this ISO time (inclusive).")
@click.option("--until", help="Before this ISO time.")
@click.option("--limit", type=int, default=200, show_default=True)
@db_option
@json_option
def events_command(
    event_type: str | None,
    entry_id: str | None,
    agent: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    db: str,
    as_json: bool,
) -> None:
    """List events (append-only), oldest first."""
    with open_store(db, create=False) as store:
        events = list(
            store.events(
                entry_id,
                agent=agent,
                type=EventType(event_type) if event_type else None,
                since=parse_time(since, "--since") if since else None,
                until=parse_time(until, "--until") if until else None,
                limit=limit,
            )
        )
    if as_json:
        echo_json([_event_json(e) for e in events])
        return
    table = Table(title_justify="left")
    for column in ("id", "at", "type", "entry", "agent", "detail"):
        table.add_column(column)
    for e in events:
        table.add_row(
            str(e.id),
            e.at.isoformat(timespec="seconds"),
            e.type.value,
            e.entry_id or "-",
            e.agent_id or "-",
            _event_detail(e.payload),
        )
    console().print(table)


def _event_detail(payload: dict[str, Any]) -> str:
    diff = payload.get("diff")
    if isinstance(diff, dict):
        return (
            ", ".join(
                f"{k}: " + ", ".join(str(i.get("field")) for i in diff.get(k, []))
                for k in ("missing", "changed", "added")
                if diff.get(k)
            )
            or "nothing lost"
        )
    for key in ("error", "reason", "note"):
        if payload.get(key):
            return str(payload[key])[:120]
    return ""


@click.command("stats")
@db_option
@json_option
def stats_command(db: str, as_json: bool) -> None:
    """Entries per tier, outcomes, failure rate per schema version, facts lost per field."""
    with open_store(db, create=False) as store:
        stats = store.stats()
    if as_json:
        echo_json(stats)
        return
    print_stats(stats)


def print_stats(stats: dict[str, Any]) -> None:
    """The stats tables."""
    out = console()
    tiers = Table(title="entries", title_justify="left")
    tiers.add_column("tier")
    tiers.add_column("count", justify="right")
    for tier, count in stats["tiers"].items():
        tiers.add_row(tier, str(count))
    out.print(tiers)
    outcomes = Table(title="attempts", title_justify="left")
    outcomes.add_column("outcome")
    outcomes.add_column("count", justify="right")
    for outcome, count in stats["attempts"].items():
        outcomes.add_row(outcome, str(count))
    out.print(outcomes)
    rates = Table(title="failure rate per schema version", title_justify="left")
    for column in ("schema", "version", "attempts", "failed", "rate"):
        rates.add_column(column)
    for row in stats["failure_rate"]:
        rates.add_row(
            row["schema"] or "-",
            str(row["version"]),
            str(row["attempts"]),
            str(row["failed"]),
            f"{row['rate']:.1%}",
        )
    out.print(rates)
    lost = Table(title="facts lost per field", title_justify="left")
    for column in ("field", "missing", "changed", "added"):
        lost.add_column(column)
    for name, counts in sorted(stats["facts_lost"].items()):
        lost.add_row(
            name,
            str(counts.get("missing", 0)),
            str(counts.get("changed", 0)),
            str(counts.get("added", 0)),
        )
    out.print(lost)
    usage = Table(title="model usage per summarizer", title_justify="left")
    for column in ("summarizer", "attempts", "tokens in", "tokens out", "cost USD"):
        usage.add_column(column)
    for row in stats.get("usage", []):
        usage.add_row(
            row["summarizer"],
            str(row["attempts"]),
            str(row["tokens_in"]),
            str(row["tokens_out"]),
            row["cost_usd"] or "-",
        )
    out.print(usage)


@click.command("migrate")
@db_option
def migrate_command(db: str) -> None:
    """Create or upgrade the store's tables."""
    store = open_store(db, check_version=False)
    try:
        applied = store.migrate()
        click.echo(f"{db}: {applied} migration(s) applied; schema version {store.schema_version()}")
    finally:
        store.close()


@click.command("verify")
@db_option
def verify_command(db: str) -> None:
    """Re-derive every content hash (hot sources and cold archives)."""
    with open_store(db, create=False) as store:
        problems = store.verify()
    for problem in problems:
        click.echo(problem)
    if problems:
        raise SystemExit(1)
    click.echo("ok: every hot source and cold archive matches its hash")


@click.group("review")
def review_group() -> None:
    """Operator review of entries that failed every attempt."""


@review_group.command("resolve")
@click.argument("entry_id")
@click.option("--note", default="", help="Why (kept in the review_resolved event).")
@db_option
def review_resolve_command(entry_id: str, note: str, db: str) -> None:
    """Put an entry back into automatic demotion."""
    with open_store(db, create=False) as store:
        changed = store.resolve_review(entry_id, datetime.now(UTC), note)
    click.echo(f"{entry_id}: {'back in demotion' if changed else 'was not in review'}")
