"""``factdiff forget`` (erase entries' content, leaving tombstones) and ``factdiff correct``
(replace an entry's source with a corrected text)."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.options import db_option, json_option, open_store
from factdiff.cli.render import echo, echo_json
from factdiff.errors import UsageError
from factdiff.present.wording import plural


@click.command("forget")
@click.argument("entry_ids", nargs=-1)
@click.option("--agent", default=None, help="Forget every entry of this agent.")
@click.option("--reason", default="", help="Why (kept in the tombstone and the erased event).")
@click.option(
    "--vacuum",
    is_flag=True,
    help="Then rewrite the store so no copy lingers in free space (locks the whole store).",
)
@db_option
@json_option
def forget_command(
    entry_ids: tuple[str, ...],
    agent: str | None,
    reason: str,
    vacuum: bool,
    db: str,
    as_json: bool,
) -> None:
    """Erase entries ID... (or --agent A) from every place the store keeps them.

    One transaction per entry; a tombstone and an `erased` event without content are left.
    Forgetting an entry already erased prints its tombstone again."""
    if bool(entry_ids) == (agent is not None):
        raise UsageError("give entry ids or --agent A (one of the two)")
    now = datetime.now(UTC)
    with open_store(db, create=False) as store:
        if agent is not None:
            results = store.forget_agent(agent, now=now, reason=reason)
        else:
            results = store.forget(entry_ids, now=now, reason=reason)
        if vacuum:
            store.vacuum()
    if as_json:
        echo_json(
            {
                "forgotten": [r.to_json() for r in results],
                "newly_erased": sum(r.newly_erased for r in results),
                "vacuumed": vacuum,
            }
        )
        return
    if not results:
        echo(f"agent {agent} has no entries left to forget")
    for r in results:
        stone = r.tombstone
        if r.newly_erased:
            echo(
                f"erased {stone.entry_id} ({stone.tier}; {plural(r.redacted_events, 'event')} and "
                f"{plural(r.redacted_attempts, 'attempt')} redacted)"
            )
        else:
            echo(f"{stone.entry_id} was already erased at {stone.erased_at.isoformat()}")
    if vacuum:
        echo("store vacuumed")


@click.command("correct")
@click.argument("entry_id")
@click.argument("file")
@click.option("--reason", default="", help="Why (kept in the corrected event).")
@db_option
@json_option
def correct_command(entry_id: str, file: str, reason: str, db: str, as_json: bool) -> None:
    """Replace an entry's source with a corrected text (FILE, or - for stdin).

    A warm entry is restored first. The previous content hash and the reason go into a
    `corrected` event, and the entry is due for compression again."""
    from factdiff.cli.inputs import read_text

    content = read_text(file)
    now = datetime.now(UTC)
    with open_store(db, create=False) as store:
        result = store.correct(entry_id, content, now=now, reason=reason)
    if as_json:
        echo_json(result.to_json())
        return
    restored = " (restored from warm first)" if result.restored else ""
    echo(f"corrected {entry_id}{restored}: {result.previous_content_hash} -> {result.content_hash}")
