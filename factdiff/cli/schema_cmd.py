"""``factdiff schema validate|show|register|assign|list|diff``.

SCHEMA is a YAML file, a built-in name (``customer_service``, ``sales``, ``operations``,
``generic``) from any directory, or a schema registered in the store (``NAME`` or
``NAME@VERSION``) wherever a schema is read.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.inputs import resolve_schema, schema_source_text
from factdiff.cli.options import db_option, json_option, not_blank, open_store
from factdiff.cli.render import echo, echo_json
from factdiff.inputs.bounds import VERSION_MAX
from factdiff.present.wording import plural


@click.group("schema")
def schema_group() -> None:
    """Validate, inspect and register fact schemas."""


@schema_group.command("validate")
@click.argument("schema")
@db_option
@json_option
def validate_command(schema: str, db: str, as_json: bool) -> None:
    """Check a schema (file, built-in or registered name); print its name, version and hash."""
    loaded = resolve_schema(schema, db)
    if as_json:
        echo_json(
            {
                "ok": True,
                "name": loaded.name,
                "version": loaded.version,
                "hash": loaded.hash,
                "fields": len(loaded.fields),
            }
        )
    else:
        fields = plural(len(loaded.fields), "field")
        echo(f"ok: {loaded.name} v{loaded.version} {loaded.hash} ({fields})")


@schema_group.command("show")
@click.argument("schema")
@click.option(
    "--json-schema", "as_json_schema", is_flag=True, help="The LLM extraction JSON Schema."
)
@click.option("--constraints", is_flag=True, help="The summary constraints text.")
@db_option
@json_option
def show_command(
    schema: str, as_json_schema: bool, constraints: bool, db: str, as_json: bool
) -> None:
    """Show a schema (file, built-in, or NAME[@VERSION] registered in the store): its
    definition, JSON Schema, or constraints."""
    from factdiff.schema.export import json_schema, summary_constraints

    loaded = resolve_schema(schema, db)
    if as_json_schema:
        echo_json(json_schema(loaded))
    elif constraints:
        echo(summary_constraints(loaded))
    elif as_json:
        echo_json({**loaded.definition(), "hash": loaded.hash})
    else:
        echo(f"{loaded.name} v{loaded.version}  {loaded.hash}")
        if loaded.description:
            echo(loaded.description)
        for spec in loaded.fields:
            extra = " many" if spec.many else ""
            echo(f"  {spec.name}: {spec.type.value} {spec.criticality.value}{extra}")
        for fact_type, criticality in sorted(loaded.inventory.items()):
            echo(f"  inventory.{fact_type.value}: {criticality.value}")


@schema_group.command("register")
@click.argument("schema")
@db_option
@json_option
def register_command(schema: str, db: str, as_json: bool) -> None:
    """Register a schema's version in the store (a new version needs a new number).

    Warm entries compressed under an older version of the schema become due for
    re-evaluation when the new version adds or raises critical or important fields or
    changes how they are extracted: their count is printed, and they are queued for
    `factdiff reevaluate` and workers.
    """
    from factdiff.demotion.reevaluation import Reevaluator

    loaded = resolve_schema(schema, db)
    source_text = schema_source_text(schema)
    now = datetime.now(UTC)
    with open_store(db) as store:
        new, plan = Reevaluator(store).register(loaded, now, source_text)
    if as_json:
        echo_json(
            {
                "registered": new,
                "name": loaded.name,
                "version": loaded.version,
                "hash": loaded.hash,
                "due_for_reevaluation": plan.due,
            }
        )
    else:
        state = "registered" if new else "already registered"
        echo(f"{state}: {loaded.name} v{loaded.version} {loaded.hash}")
        if plan.due:
            echo(
                f"{plural(plan.due, 'warm entry', 'warm entries')} compressed under an older "
                f"version {'is' if plan.due == 1 else 'are'} due for "
                f"re-evaluation: run `factdiff reevaluate --schema {loaded.name}` (or a worker)"
            )


@schema_group.command("assign")
@click.argument("agent")
@click.argument("name")
@click.option("--tag", callback=not_blank, help="Only for this agent's entries with this tag.")
@db_option
@json_option
def assign_command(agent: str, name: str, tag: str | None, db: str, as_json: bool) -> None:
    """Use schema NAME for AGENT's entries (optionally only those tagged --tag)."""
    from factdiff.store.catalog import SchemaCatalog

    with open_store(db) as store:
        SchemaCatalog(store).get(name, datetime.now(UTC))
        store.set_agent_schema(agent, name, tag)
    if as_json:
        echo_json({"agent": agent, "tag": tag, "schema": name})
    else:
        echo(f"{agent}{f' [{tag}]' if tag else ''} -> {name}")


@schema_group.command("list")
@db_option
@json_option
def list_command(db: str, as_json: bool) -> None:
    """Registered schemas: versions, hashes, registration time, agents and tags using them."""
    from factdiff.cli.options import open_store_to_read
    from factdiff.cli.render import console, table, text
    from factdiff.inputs.json_toml import json_objects
    from factdiff.present.schema_listing import schema_listing

    with open_store_to_read(db) as store:
        rows = schema_listing(store)
    if as_json:
        echo_json({"schemas": rows})
        return
    listing = table("name", "version", "hash", "registered at", "warm", "used by")
    for row in rows:
        used_by = json_objects(row["used_by"])
        users = [f"{u['agent']}[{u['tag']}]" if u["tag"] else str(u["agent"]) for u in used_by]
        listing.add_row(
            text(row["name"]),
            str(row["version"]) + (" (latest)" if row["latest"] else ""),
            text(row["hash"]),
            text(row["registered_at"]),
            str(row["warm_entries"]),
            text(", ".join(users) or "-"),
        )
    console().print(listing)


@schema_group.command("diff")
@click.argument("name")
@click.argument("v1", type=click.IntRange(1, VERSION_MAX))
@click.argument("v2", type=click.IntRange(1, VERSION_MAX))
@db_option
@json_option
def diff_command(name: str, v1: int, v2: int, db: str, as_json: bool) -> None:
    """What changed from version V1 to V2 of registered schema NAME: fields added and
    removed, criticality raised or lowered, type, pattern, cue and tolerance changes."""
    from factdiff.cli.render import console, table, text
    from factdiff.schema.evolution import diff_schemas

    old, new = resolve_schema(f"{name}@{v1}", db), resolve_schema(f"{name}@{v2}", db)
    result = diff_schemas(old, new)
    if as_json:
        echo_json(result.to_json())
        return
    echo(f"{name} v{v1} -> v{v2}: {plural(len(result.changes), 'change')}")
    if result.changes:
        changes = table("field", "change", "before", "after", "re-evaluate")
        for change in result.changes:
            changes.add_row(
                text(change.field),
                change.change,
                text(_shown(change.before)),
                text(_shown(change.after)),
                "yes" if change.material else "",
            )
        console().print(changes)
    if result.material:
        echo(f"warm entries compressed under v{v1} are due for re-evaluation under v{v2}")


def _shown(value: object) -> str:
    import json

    if value is None:
        return "-"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
