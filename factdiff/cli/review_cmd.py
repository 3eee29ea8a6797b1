"""``factdiff review resolve``: return entries from operator review to automatic demotion."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store
from factdiff.cli.render import echo, echo_json
from factdiff.errors import InputError


@click.group("review")
def review_group() -> None:
    """Operator review of entries that failed every attempt."""


@review_group.command("resolve")
@click.argument("entry_id", required=False)
@click.option("--all", "every", is_flag=True, help="Every entry in review (with the filters).")
@click.option(
    "--reason",
    callback=not_blank,
    help="With --all: only entries escalated for this reason (e.g. provider_unavailable).",
)
@click.option("--agent", callback=not_blank, help="With --all: only this agent's entries.")
@click.option("--note", default="", help="Why (kept in each review_resolved event).")
@db_option
@json_option
def review_resolve_command(
    entry_id: str | None,
    every: bool,
    reason: str | None,
    agent: str | None,
    note: str,
    db: str,
    as_json: bool,
) -> None:
    """Put ENTRY_ID, or with --all every entry in review, back into automatic demotion.

    --reason matches the reason (or failure class) of the entry's latest
    escalated_to_review event exactly.
    """
    if not every and (reason is not None or agent is not None):
        raise InputError("--reason and --agent select entries for --all; use them with --all")
    if every and entry_id is not None:
        raise InputError("give an ENTRY_ID or --all, not both")
    if not every and entry_id is None:
        raise InputError("give an ENTRY_ID or --all (with --reason/--agent)")
    now = datetime.now(UTC)
    with open_store(db, create=False) as store:
        if entry_id is not None:
            changed = store.resolve_review(entry_id, now, note)
            resolved = [entry_id] if changed else []
        else:
            resolved = store.resolve_reviews(now, agent=agent, reason=reason, note=note)
    if as_json:
        echo_json({"resolved": resolved, "count": len(resolved)})
    elif entry_id is not None:
        echo(f"{entry_id}: {'back in demotion' if resolved else 'was not in review'}")
    else:
        echo(f"{len(resolved)} entries back in demotion")
        for resolved_id in resolved:
            echo(f"  {resolved_id}")
