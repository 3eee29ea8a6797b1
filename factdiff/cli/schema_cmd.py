"""``factdiff schema validate|show|register|assign``.

SCHEMA is a YAML file or a built-in name (``customer_service``, ``sales``, ``operations``,
``generic``) wherever a schema is read, from any directory.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.inputs import resolve_schema, schema_source_text
from factdiff.cli.options import db_option, json_option, not_blank, open_store
from factdiff.cli.render import echo, echo_json


@click.group("schema")
def schema_group() -> None:
    """Validate, inspect and register fact schemas."""


@schema_group.command("validate")
@click.argument("schema")
@json_option
def validate_command(schema: str, as_json: bool) -> None:
    """Check a schema (file or built-in name); print its name, version and hash."""
    loaded = resolve_schema(schema)
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
        echo(f"ok: {loaded.name} v{loaded.version} {loaded.hash} ({len(loaded.fields)} fields)")


@schema_group.command("show")
@click.argument("schema")
@click.option(
    "--json-schema", "as_json_schema", is_flag=True, help="The LLM extraction JSON Schema."
)
@click.option("--constraints", is_flag=True, help="The summary constraints text.")
@json_option
def show_command(schema: str, as_json_schema: bool, constraints: bool, as_json: bool) -> None:
    """Show a schema (file or built-in name): its definition, JSON Schema, or constraints."""
    from factdiff.schema.export import json_schema, summary_constraints

    loaded = resolve_schema(schema)
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
    """Register a schema's version in the store (a new version needs a new number)."""
    from factdiff.catalog import SchemaCatalog

    loaded = resolve_schema(schema)
    source_text = schema_source_text(schema)
    with open_store(db) as store:
        new = SchemaCatalog(store).register(loaded, datetime.now(UTC), source_text)
    if as_json:
        echo_json(
            {
                "registered": new,
                "name": loaded.name,
                "version": loaded.version,
                "hash": loaded.hash,
            }
        )
    else:
        state = "registered" if new else "already registered"
        echo(f"{state}: {loaded.name} v{loaded.version} {loaded.hash}")


@schema_group.command("assign")
@click.argument("agent")
@click.argument("name")
@click.option("--tag", callback=not_blank, help="Only for this agent's entries with this tag.")
@db_option
@json_option
def assign_command(agent: str, name: str, tag: str | None, db: str, as_json: bool) -> None:
    """Use schema NAME for AGENT's entries (optionally only those tagged --tag)."""
    from factdiff.catalog import SchemaCatalog

    with open_store(db) as store:
        SchemaCatalog(store).get(name, datetime.now(UTC))
        store.set_agent_schema(agent, name, tag)
    if as_json:
        echo_json({"agent": agent, "tag": tag, "schema": name})
    else:
        echo(f"{agent}{f' [{tag}]' if tag else ''} -> {name}")
