"""Store-wide commands: ``stats``, ``migrate`` and ``verify``."""

from __future__ import annotations

from typing import Any

import click

from factdiff.cli.options import (
    db_option,
    json_option,
    not_blank,
    open_store,
    open_store_to_read,
)
from factdiff.cli.render import console, echo, echo_json, one_line, table, text
from factdiff.errors import InputError
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.ops.health import WINDOW, agent_health, reevaluation_by_schema
from factdiff.present.wording import percent, plural, signed_percent


@click.command("stats")
@click.option("--agent", callback=not_blank, help="The memory score of this agent only.")
@click.option(
    "--window",
    type=click.IntRange(1, COUNT_MAX),
    default=WINDOW,
    show_default=True,
    help="Attempts per agent the failure rate (and its trend) is measured over.",
)
@db_option
@json_option
def stats_command(agent: str | None, window: int, db: str, as_json: bool) -> None:
    """Entries per tier, outcomes, failure rate per schema version, facts lost per field,
    re-evaluation results and the memory score of each agent."""
    with open_store_to_read(db) as store:
        stats = store.stats()
        stats["reevaluation"] = reevaluation_by_schema(store, agent)
        stats["agents"] = agent_health(store, agent, window)
    if agent is not None and not stats["agents"]:
        raise InputError(f"no entries of agent {agent!r}: check the name with `factdiff list`")
    if as_json:
        echo_json(stats)
        return
    print_stats(stats)
    print_health(stats)


def print_health(stats: dict[str, Any]) -> None:
    """Re-evaluation per schema version and the memory score per agent."""
    out = console()
    if stats["reevaluation"]:
        rows = table(
            "schema", "version", "checked", "promoted", "rate", title="re-evaluation failures"
        )
        for row in stats["reevaluation"]:
            rows.add_row(
                text(row["schema"]),
                text(row["version"]),
                text(row["checked"]),
                text(row["promoted"]),
                text(percent(row["rate"])),
            )
        out.print(rows)
    scores = table(
        "agent",
        "health",
        "failure rate",
        "trend",
        "gaps",
        "verified",
        "re-eval failed",
        "waiting for review",
        "kept hot",
        title="memory score per agent",
        right=("health",),
    )
    for row in stats["agents"]:
        trend = row["trend"]
        scores.add_row(
            text(row["agent"]),
            text(row["health"]),
            text(percent(row["failure_rate"])),
            text(signed_percent(trend)),
            text(percent(row["gap_share"])),
            text(percent(row["coverage"]["share"])),
            text(percent(row["reevaluation"]["rate"])),
            text(row["review_backlog"]),
            text(row["kept_hot"]),
        )
    out.print(scores)


def print_stats(stats: dict[str, Any]) -> None:
    """The stats tables."""
    out = console()
    tiers = table("tier", "count", title="entries", right=("count",))
    for tier, count in stats["tiers"].items():
        tiers.add_row(text(tier), text(count))
    out.print(tiers)
    outcomes = table("outcome", "count", title="attempts", right=("count",))
    for outcome, count in stats["attempts"].items():
        outcomes.add_row(text(outcome), text(count))
    out.print(outcomes)
    rates = table(
        "schema", "version", "attempts", "failed", "rate", title="failure rate per schema version"
    )
    for row in stats["failure_rate"]:
        rates.add_row(
            text(row["schema"] or "-"),
            text(row["version"]),
            text(row["attempts"]),
            text(row["failed"]),
            text(percent(row["rate"])),
        )
    out.print(rates)
    lost = table("field", "missing", "changed", "added", title="facts lost per field")
    for name, counts in sorted(stats["facts_lost"].items()):
        lost.add_row(
            text(name),
            text(counts.get("missing", 0)),
            text(counts.get("changed", 0)),
            text(counts.get("added", 0)),
        )
    out.print(lost)
    usage = table(
        "summarizer",
        "attempts",
        "tokens in",
        "tokens out",
        "cost USD",
        title="model usage per summarizer",
    )
    for row in stats.get("usage", []):
        usage.add_row(
            text(row["summarizer"]),
            text(row["attempts"]),
            text(row["tokens_in"]),
            text(row["tokens_out"]),
            text(row["cost_usd"] or "-"),
        )
    out.print(usage)
    storage = stats.get("storage")
    if storage:
        print_storage(storage)


def print_storage(storage: dict[str, Any]) -> None:
    """Bytes per tier, and the warm and cold tiers against the sources they replaced."""
    sizes = table("part", "bytes", title="storage", right=("bytes",))
    for key in (
        "hot_content",
        "warm_narratives",
        "warm_records",
        "warm_meta",
        "cold_archives",
        "dictionaries",
        "warm_source_bytes",
        "retrieval_index",
    ):
        sizes.add_row(text(key.replace("_", " ")), text(storage[key]))
    console().print(sizes)
    warm, cold = storage["warm_ratio"], storage["cold_ratio"]
    if warm is None or cold is None:
        echo("no warm entries yet: nothing compressed")
    else:
        echo(
            f"warm tier {warm:.2f}x and cold archives {cold:.2f}x the "
            f"{plural(storage['warm_source_bytes'], 'source byte')} they replaced"
        )


@click.command("migrate")
@db_option
@json_option
def migrate_command(db: str, as_json: bool) -> None:
    """Create or upgrade the store's tables."""
    store = open_store(db, check_version=False)
    try:
        applied = store.migrate()
        version = store.schema_version()
        location = store.location
    finally:
        store.close()
    if as_json:
        echo_json({"location": location, "applied": applied, "schema_version": version})
    else:
        echo(f"{location}: {plural(applied, 'migration')} applied; schema version {version}")


@click.command("verify")
@db_option
@json_option
def verify_command(db: str, as_json: bool) -> None:
    """Re-derive every hash: sources, archives, warm narratives and records, attestations.

    Also checks that every entry is in one tier and in the search index; exit 1 on a problem.
    """
    with open_store_to_read(db) as store:
        problems = store.verify()
    if as_json:
        echo_json({"ok": not problems, "problems": problems})
    elif problems:
        for problem in problems:
            echo(one_line(problem))
    else:
        echo(
            "ok: every hot source, cold archive, warm narrative, warm fact record and "
            "attestation matches its hash"
        )
    if problems:
        raise SystemExit(1)


@click.command("index")
@click.option("--rebuild", is_flag=True, help="Rebuild the search indexes of every entry.")
@db_option
@json_option
def index_command(rebuild: bool, db: str, as_json: bool) -> None:
    """Fill the search indexes: facts of entries added with --defer-index, entries missing."""
    with open_store(db, create=False) as store:
        indexed = store.build_search_index(rebuild=rebuild)
    if as_json:
        echo_json({"indexed": indexed, "rebuilt": rebuild})
    else:
        echo(f"{plural(indexed, 'entry', 'entries')} indexed" + (" (rebuilt)" if rebuild else ""))
