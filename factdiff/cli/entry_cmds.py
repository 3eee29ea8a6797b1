"""``factdiff show``, ``touch`` and ``restore``: one entry at a time."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from factdiff.cli.options import db_option, json_option, open_store, open_store_to_read
from factdiff.cli.render import console, echo, echo_json, table, text
from factdiff.present.documents import event_json, show_document

if TYPE_CHECKING:
    from rich.table import Table

    from factdiff.retrieve.context import EntryView
    from factdiff.store import Entry, Event, MemoryStore
    from factdiff.store.model import EntryErased


@click.command("show")
@click.argument("entry_id")
@db_option
@json_option
def show_command(entry_id: str, db: str, as_json: bool) -> None:
    """Show an entry: its tier content, compression history and events."""
    from factdiff.store.model import EntryErased

    with open_store_to_read(db) as store:
        try:
            entry = store.get(entry_id)
        except EntryErased as exc:
            show_tombstone(exc, list(store.events(entry_id)), as_json)
            return
        if as_json:
            echo_json(show_document(store, entry_id))
            return
        attempts = store.attempts(entry_id)
        events = list(store.events(entry_id))
        view = None if entry.warm is None else warm_view(store, entry)
    from rich.text import Text

    out = console()
    out.print(
        Text.assemble(
            text(entry.id, "bold"),
            " agent=",
            text(entry.agent_id),
            f" tier={entry.tier.value} status={entry.status.value} attempts={entry.attempt_count}",
        )
    )
    if entry.content is not None:
        out.print(Text.assemble(("hot source:", "bold"), " ", text(entry.content)))
    if entry.warm is not None:
        out.print(Text.assemble(("warm narrative:", "bold"), " ", text(entry.warm.narrative)))
        if view is not None:
            out.print(record_table(view))
            out.print(text(f"known gaps: {gaps_line(view)}"))
        out.print(text(f"meta: {json.dumps(entry.warm.meta.to_json(), sort_keys=True)}"))
    history = table(
        "#",
        "rung",
        "summarizer",
        "outcome",
        "missing",
        "changed",
        "added",
        title="compression history",
    )
    for a in attempts:
        history.add_row(
            text(a.attempt_no),
            text(a.rung),
            text(a.summarizer),
            text(a.outcome.value),
            *(
                text(", ".join(str(i.get("field")) for i in a.diff.get(k, [])) or "-")
                for k in ("missing", "changed", "added")
            ),
        )
    out.print(history)
    for event in events:
        out.print(text(f"{event.at.isoformat()}  {event.type.value}"))


def show_tombstone(erased: EntryErased, events: list[Event], as_json: bool) -> None:
    """An erased entry: its tombstone and its (redacted) events."""
    stone = erased.tombstone
    if as_json:
        echo_json({"tombstone": stone.to_json(), "events": [event_json(e) for e in events]})
        return
    why = f" reason: {stone.reason}" if stone.reason else ""
    echo(
        f"{stone.entry_id} agent={stone.agent_id} erased at {stone.erased_at.isoformat()} "
        f"(was {stone.tier}; content hash {stone.content_hash}){why}"
    )
    for event in events:
        echo(f"{event.at.isoformat()}  {event.type.value}")


def warm_view(store: MemoryStore, entry: Entry) -> EntryView:
    """A warm entry as an agent reads it: narrative, source record, known gaps."""
    from factdiff.retrieve.context import entry_view
    from factdiff.retrieve.schemas import SchemaResolver

    return entry_view(store, entry, SchemaResolver(store))


def record_table(view: EntryView) -> Table:
    """A warm entry's fact record (its source's), one row per fact: field, value, as stated,
    evidence spans."""
    from factdiff.retrieve.keys import record_facts

    rows = table("field", "value", "stated as", "evidence", title="fact record (of the source)")
    if view.record is None:
        rows.add_row(text("-"), text("(not a fact record)"), text("-"), text("-"))
        return rows
    for name, fact in record_facts(view.record):
        value = fact.value.canonical()
        shown = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        spans = ", ".join(f"{start}-{end}" for start, end in fact.spans)
        rows.add_row(text(name), text(shown), text(fact.text), text(spans or "-"))
    return rows


def gaps_line(view: EntryView) -> str:
    """``call_time (important, datetime), ...`` or ``none``."""
    if not view.gaps:
        return "none"
    return ", ".join(f"{g.field} ({g.criticality or '-'}, {g.fact_type or '-'})" for g in view.gaps)


@click.command("touch")
@click.argument("entry_id")
@db_option
@json_option
def touch_command(entry_id: str, db: str, as_json: bool) -> None:
    """Mark an entry as used now (resets its dormancy clock)."""
    now = datetime.now(UTC)
    with open_store(db, create=False) as store:
        store.touch(entry_id, now)
    if as_json:
        echo_json({"id": entry_id, "touched": True, "last_used_at": now.isoformat()})
    else:
        echo(f"touched {entry_id}")


@click.command("restore")
@click.argument("entry_id")
@db_option
@json_option
def restore_command(entry_id: str, db: str, as_json: bool) -> None:
    """Bring an entry's archived source back from cold to hot (hash-checked)."""
    now = datetime.now(UTC)
    with open_store(db, create=False) as store:
        store.restore(entry_id, now)
        entry = store.get(entry_id)
    if as_json:
        echo_json(
            {
                "id": entry_id,
                "restored": True,
                "tier": entry.tier.value,
                "content_hash": entry.content_hash,
                "size_bytes": entry.size_bytes,
            }
        )
    else:
        echo(f"restored {entry_id} to hot")
