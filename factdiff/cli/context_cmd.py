"""``factdiff context`` and ``factdiff attest``: what an agent was shown, and proof of it.

``context ID...`` prints the rendered context (``factdiff.retrieve.context``) and its hash;
``--json`` prints ``{"hash", "entries", "text"}``. ``attest --decision D ID...`` records the
attestation of decision D; ``attest verify D`` re-renders it and says what changed (exit 1
when it no longer matches, 3 when all that is left matches and the rest was erased through
``factdiff forget``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store, open_store_to_read
from factdiff.cli.render import echo, echo_json
from factdiff.errors import InputError
from factdiff.present.wording import plural

VERIFY = "verify"


@click.command("context")
@click.argument("entry_ids", nargs=-1, required=True)
@db_option
@json_option
def context_command(entry_ids: tuple[str, ...], db: str, as_json: bool) -> None:
    """Render exactly what an agent is shown of entries ID..., with its sha256 hash."""
    with open_store_to_read(db) as store:
        context = store.render_context(entry_ids)
    if as_json:
        echo_json(context.to_json())
        return
    echo(context.text)
    echo(f"hash: {context.hash}")


@click.command("attest")
@click.option("--decision", callback=not_blank, help="The decision's id (to record one).")
@click.argument("args", nargs=-1, required=True)
@click.option(
    "--agent",
    callback=not_blank,
    help="With verify: whose decision D it is (decision ids are per agent).",
)
@db_option
@json_option
def attest_command(
    decision: str | None, args: tuple[str, ...], agent: str | None, db: str, as_json: bool
) -> None:
    """Record (--decision D ID...) or check (verify D) the context a decision was made on.

    `factdiff attest --decision D ID...` renders the entries and records the decision, the
    context's hash and, per entry, its tier, schema version and source hash.
    `factdiff attest verify D` renders them again: exit 0 when the context still matches,
    1 when it does not, naming each entry that changed and what changed, 3 when every entry
    left matches and the others were erased (`factdiff forget`). Decision ids are per agent
    (the agent whose entries were attested): give --agent when several agents hold D.
    """
    if args[0] == VERIFY and decision is None:
        if len(args) != 2:
            raise InputError("give one decision id: factdiff attest verify D")
        _verify(args[1], agent, db, as_json)
        return
    if agent is not None:
        raise InputError("--agent goes with verify: a decision belongs to its entries' agent")
    if decision is None:
        raise InputError(
            "give the decision: factdiff attest --decision D ID... (or: attest verify D)"
        )
    with open_store(db, create=False) as store:
        attestation = store.attest(decision, args, now=datetime.now(UTC))
    if as_json:
        echo_json(attestation.to_json())
        return
    entries = plural(len(attestation.entries), "entry", "entries")
    echo(
        f"attested decision {attestation.decision_id}: {entries}, "
        f"context {attestation.rendered_hash}"
    )
    for entry in attestation.entries:
        echo(
            f"  {entry.entry_id}  tier={entry.tier}  schema={entry.schema_name} "
            f"v{entry.schema_version}  source={entry.source_hash}"
        )


def _verify(decision: str, agent: str | None, db: str, as_json: bool) -> None:
    with open_store_to_read(db) as store:
        check = store.check_attestation(decision, agent)
    if as_json:
        echo_json(check.to_json())
    else:
        verdict = {
            "ok": "matches",
            "erased": "matches but for entries erased since (factdiff forget)",
        }.get(check.status, "no longer matches")
        echo(f"decision {decision}: the context {verdict} ({check.attestation.rendered_hash})")
        if not check.intact:
            echo("  the attestation's own record was altered (its digest does not match)")
        for entry in check.entries:
            what = "".join(f"; {change}" for change in entry.changes)
            echo(f"  {entry.entry_id}: {entry.status}{what}; {entry.source}")
    if check.status == "erased":
        raise SystemExit(3)
    if not check.ok:
        raise SystemExit(1)
