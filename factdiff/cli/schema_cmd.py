"""``factdiff schema validate|show``."""

from __future__ import annotations

import click

from factdiff.cli.inputs import resolve_schema
from factdiff.cli.render import echo_json
from factdiff.schema.export import json_schema, summary_constraints


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
