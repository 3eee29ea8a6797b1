"""``factdiff review``: resolve (one or in bulk), approve despite loss, edit and re-verify,
keep hot for good."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store
from factdiff.cli.render import echo, echo_json
from factdiff.cli.settings_options import (
    COMPONENT_KEYS,
    DEMOTION_KEYS,
    MODEL_KEYS,
    model_param_option,
    setting_options,
    settings_from,
)
from factdiff.errors import InputError
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.present.wording import plural


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
        echo(f"{plural(len(resolved), 'entry', 'entries')} back in demotion")
        for resolved_id in resolved:
            echo(f"  {resolved_id}")


def _operator() -> str:
    """Who decides, as recorded with the decision: the local user, from the CLI."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # pragma: no cover - no user name on this system
        return "cli"


@review_group.command("approve")
@click.argument("entry_id")
@click.option("--reason", required=True, callback=not_blank, help="Why the loss is accepted.")
@db_option
@json_option
def review_approve_command(entry_id: str, reason: str, db: str, as_json: bool) -> None:
    """Accept ENTRY_ID's last summary despite what it lost (its losses become known gaps)."""
    from factdiff.demotion.review import approve

    with open_store(db, create=False) as store:
        decision = approve(
            store, entry_id, reason=reason, key_name=_operator(), now=datetime.now(UTC)
        )
    if as_json:
        echo_json(decision.to_json())
    else:
        gaps = ", ".join(g.field for g in decision.known_gaps) or "none"
        echo(f"{entry_id}: warm ({decision.outcome.value}); known gaps: {gaps}")


@review_group.command("edit")
@click.argument("entry_id")
@click.argument("summary_file")
@db_option
@json_option
def review_edit_command(entry_id: str, summary_file: str, db: str, as_json: bool) -> None:
    """Verify the summary in SUMMARY_FILE (or - for stdin) for ENTRY_ID; write it if it
    passes its fact diff, refuse it (exit 1, nothing written) if it fails."""
    from factdiff.cli.inputs import read_text
    from factdiff.demotion.review import SummaryRefused, edit
    from factdiff.present.safe_text import one_line

    summary = read_text(summary_file)
    with open_store(db, create=False) as store:
        try:
            decision = edit(
                store, entry_id, summary=summary, key_name=_operator(), now=datetime.now(UTC)
            )
        except SummaryRefused as refused:  # a verdict, like `check` failing: exit 1
            if as_json:
                echo_json({"refused": True, "check": refused.result.to_json()})
            click.echo(f"error: {one_line(refused)}", err=True)
            raise SystemExit(1) from None
    if as_json:
        echo_json(decision.to_json())
    else:
        echo(f"{entry_id}: warm ({decision.outcome.value})")


@review_group.command("keep-hot")
@click.argument("entry_id")
@click.option("--reason", required=True, callback=not_blank, help="Why it stays hot.")
@db_option
@json_option
def review_keep_hot_command(entry_id: str, reason: str, db: str, as_json: bool) -> None:
    """Keep ENTRY_ID hot for good: never demoted, out of the review queue."""
    with open_store(db, create=False) as store:
        kept = store.keep_hot(entry_id, datetime.now(UTC), key_name=_operator(), reason=reason)
    if as_json:
        echo_json({"id": entry_id, "kept": True, "already": not kept})
    else:
        echo(f"{entry_id}: {'kept hot' if kept else 'was already kept hot'}")


@review_group.command("retry")
@click.argument("entry_id")
@click.option(
    "--rung", type=click.IntRange(0, COUNT_MAX), required=True, help="Ladder rung, from 0."
)
@setting_options(*COMPONENT_KEYS, *DEMOTION_KEYS, *MODEL_KEYS)
@model_param_option
@db_option
@json_option
def review_retry_command(
    entry_id: str,
    rung: int,
    model_params: tuple[str, ...],
    db: str,
    as_json: bool,
    **options: object,
) -> None:
    """Retry ENTRY_ID now on ladder rung --rung; a failure sends it back to review."""
    from factdiff.demotion.demoter import DemotionSettings
    from factdiff.demotion.review import retry

    settings = DemotionSettings.from_settings(settings_from(options, model_params))
    with open_store(db, create=False) as store:
        done = retry(
            store,
            entry_id,
            rung=rung,
            key_name=_operator(),
            now=datetime.now(UTC),
            settings=settings,
        )
    if as_json:
        echo_json(done)
    else:
        echo(f"{entry_id}: rung {rung} {done['outcome']}; now {done['tier']} ({done['status']})")
