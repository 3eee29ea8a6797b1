"""``factdiff list`` and ``factdiff events``: paged listings that say what they left out.

Both print ``N of TOTAL`` and, when more remain, the ``--cursor`` of the next page; with
``--json`` they print ``{"entries"|"events": [...], "total", "offset", "count",
"next_cursor"}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

import click

from factdiff.cli.options import (
    db_option,
    json_option,
    limit_option,
    not_blank,
    open_store_to_read,
    parse_time,
)
from factdiff.cli.render import console, echo, echo_json, table, text
from factdiff.cli.views import entry_json, event_detail, event_json
from factdiff.present.paging import decode_cursor, encode_cursor, shown_line
from factdiff.store import EntryStatus, EventType, Page, Tier

if TYPE_CHECKING:
    from factdiff.values.base import JSON

T = TypeVar("T")

CURSOR_HELP = "Continue a listing where the previous page ended (its next_cursor)."


def _page_json(
    key: str, page: Page[T], items: Sequence[JSON], cursor: str | None
) -> dict[str, JSON]:
    return {
        key: items,
        "total": page.total,
        "offset": page.offset,
        "count": len(page.items),
        "next_cursor": cursor,
    }


@click.command("list")
@click.option("--agent", callback=not_blank, help="Only this agent.")
@click.option(
    "--tier", type=click.Choice([Tier.HOT.value, Tier.WARM.value]), help="Only this tier."
)
@click.option(
    "--status",
    type=click.Choice([s.value for s in EntryStatus]),
    help="Only this status (review: waiting for an operator).",
)
@limit_option(100, "Entries per page.")
@click.option("--cursor", help=CURSOR_HELP)
@db_option
@json_option
def list_command(
    agent: str | None,
    tier: str | None,
    status: str | None,
    limit: int,
    cursor: str | None,
    db: str,
    as_json: bool,
) -> None:
    """List entries by agent, tier and status, in creation order."""
    filters = {"agent": agent, "tier": tier, "status": status}
    after = "" if cursor is None else str(decode_cursor(cursor, "list", filters))
    with open_store_to_read(db) as store:
        page = store.entry_page(
            agent=agent,
            tier=Tier(tier) if tier else None,
            status=EntryStatus(status) if status else None,
            after=after,
            limit=limit,
        )
    next_cursor = (
        None if page.next_after is None else encode_cursor("list", filters, page.next_after)
    )
    if as_json:
        echo_json(_page_json("entries", page, [entry_json(e) for e in page.items], next_cursor))
        return
    rows = table("id", "agent", "tier", "status", "attempts", "last used", "bytes")
    for e in page.items:
        rows.add_row(
            text(e.id),
            text(e.agent_id),
            text(e.tier.value),
            text(e.status.value),
            text(e.attempt_count),
            text(e.last_used_at.isoformat(timespec="minutes")),
            text(e.size_bytes),
        )
    console().print(rows)
    echo(shown_line(("entry", "entries"), len(page.items), page.offset, page.total, next_cursor))


@click.command("events")
@click.option("--type", "event_type", type=click.Choice([t.value for t in EventType]))
@click.option("--entry", "entry_id", callback=not_blank, help="Only this entry.")
@click.option("--agent", callback=not_blank, help="Only this agent.")
@click.option("--since", callback=not_blank, help="From this ISO time (inclusive).")
@click.option("--until", callback=not_blank, help="Before this ISO time.")
@limit_option(200, "Events per page.")
@click.option("--cursor", help=CURSOR_HELP)
@db_option
@json_option
def events_command(
    event_type: str | None,
    entry_id: str | None,
    agent: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    cursor: str | None,
    db: str,
    as_json: bool,
) -> None:
    """List events (append-only), oldest first."""
    filters = {
        "type": event_type,
        "entry": entry_id,
        "agent": agent,
        "since": since,
        "until": until,
    }
    after = 0 if cursor is None else decode_cursor(cursor, "events", filters)
    if not isinstance(after, int):
        raise click.BadParameter("not a cursor of the events listing", param_hint="--cursor")
    with open_store_to_read(db) as store:
        page = store.event_page(
            entry_id,
            agent=agent,
            type=EventType(event_type) if event_type else None,
            since=parse_time(since, "--since") if since is not None else None,
            until=parse_time(until, "--until") if until is not None else None,
            after=after,
            limit=limit,
        )
    next_cursor = (
        None if page.next_after is None else encode_cursor("events", filters, page.next_after)
    )
    if as_json:
        echo_json(_page_json("events", page, [event_json(e) for e in page.items], next_cursor))
        return
    rows = table("id", "at", "type", "entry", "agent", "detail")
    for e in page.items:
        rows.add_row(
            text(e.id),
            text(e.at.isoformat(timespec="seconds")),
            text(e.type.value),
            text(e.entry_id),
            text(e.agent_id),
            text(event_detail(e.payload)),
        )
    console().print(rows)
    echo(shown_line(("event", "events"), len(page.items), page.offset, page.total, next_cursor))
