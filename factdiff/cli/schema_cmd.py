"""``factdiff schema validate|show``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from factdiff.catalog import SchemaCatalog
from factdiff.cli.inputs import resolve_schema
from factdiff.cli.options import db_option, open_store
from factdiff.cli.render import echo_json
from factdiff.schema.export import json_schema, summary_constraints
from factdiff.schema.loader import load_schema


@click.group("schema")
def schema_group() -> None:
    """Validate and inspect fact schemas."""


@schema_group.command("validate")
@click.argument("path")
def validate_command(path: str) -> None:
    """Check a schema file; print its name, version and hash."""
    schema = resolve_schema(path)
    click.echo(f"ok: {schema.name} v{schema.version} {schema.hash} ({len(schema.fields)} fields)")


@schema_group.command("show")
@click.argument("path")
@click.option(
    "--json-schema", "as_json_schema", is_flag=True, help="The LLM extraction JSON Schema."
)
@click.option("--constraints", is_flag=True, help="The summary constraints text.")
@click.option("--json", "as_json", is_flag=True, help="The normalised definition as JSON.")
def show_command(path: str, as_json_schema: bool, constraints: bool, as_json: bool) -> None:
    """Show a schema: its definition, JSON Schema, or summary constraints."""
    schema = resolve_schema(path)
    if as_json_schema:
        echo_json(json_schema(schema))
    elif constraints:
        click.echo(summary_constraints(schema))
    elif as_json:
        echo_json({**schema.definition(), "hash": schema.hash})
    else:
        click.echo(f"{schema.name} v{schema.version}  {schema.hash}")
        if schema.description:
            click.echo(schema.description)
        for spec in schema.fields:
            extra = " many" if spec.many else ""
            click.echo(f"  {spec.name}: {spec.type.value} {spec.criticality.value}{extra}")
        for fact_type, criticality in sorted(schema.inventory.items()):
            click.echo(f"  inventory.{fact_type.value}: {criticality.value}")


@schema_group.command("register")
@click.argument("path")
@db_option
def register_command(path: str, db: str) -> None:
    """Register a schema file's version in the store (a new version needs a new number)."""
    schema = load_schema(path)
    source_text = Path(path).read_text(encoding="utf-8")
    with open_store(db) as store:
        new = SchemaCatalog(store).register(schema, datetime.now(UTC), source_text)
    state = "registered" if new else "already registered"
    click.echo(f"{state}: {schema.name} v{schema.version} {schema.hash}")


@schema_group.command("assign")
@click.argument("agent")
@click.argument("name")
@click.option("--tag", help="Only for this agent's entries with this capability tag.")
@db_option
def assign_command(agent: str, name: str, tag: str | None, db: str) -> None:
    """Use schema NAME for AGENT's entries (optionally only those tagged --tag)."""
    with open_store(db) as store:
        SchemaCatalog(store).get(name, datetime.now(UTC))
        store.set_agent_schema(agent, name, tag)
    click.echo(f"{agent}{f' [{tag}]' if tag else ''} -> {name}")
