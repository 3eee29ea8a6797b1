"""``factdiff check`` and ``factdiff extract``."""

from __future__ import annotations

import sys
from datetime import date

import click

from factdiff.cli.inputs import read_text, resolve_schema
from factdiff.cli.options import db_option, not_blank
from factdiff.cli.render import console, diff_table, echo_json, outcome_line, table, text
from factdiff.cli.settings_options import (
    MODEL_KEYS,
    model_param_option,
    setting_options,
    settings_from,
)
from factdiff.errors import InputError
from factdiff.extraction.base import Extractor
from factdiff.inputs.json_toml import JSON
from factdiff.settings import Settings
from factdiff.verify.check import check

SCHEMA_HELP = (
    "YAML schema file, built-in name, or NAME / NAME@VERSION registered in --db "
    "(default: generic, inventory only)."
)
REFERENCE_HELP = "The entry's own date (YYYY-MM-DD) for partial and relative dates."


def _reference(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InputError(f"--reference {value!r} is not a date like 2026-03-14") from None


@click.command("check")
@click.argument("source", type=str)
@click.argument("summary", type=str)
@click.option("--schema", "schema_option", callback=not_blank, help=SCHEMA_HELP)
@click.option("--reference", help=REFERENCE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@db_option
def check_command(
    source: str,
    summary: str,
    schema_option: str | None,
    reference: str | None,
    as_json: bool,
    db: str,
) -> None:
    """Diff the facts of SUMMARY against SOURCE (files, or - for stdin).

    Exit 0 clean, 3 acceptable with notes, 1 failed, 2 usage or input error.
    """
    if source == "-" and summary == "-":
        raise InputError("SOURCE and SUMMARY cannot both be standard input (-): give a file")
    schema = resolve_schema(schema_option, db)
    result = check(read_text(source), read_text(summary), schema, reference=_reference(reference))
    if as_json:
        echo_json(result.to_json())
    else:
        out = console()
        out.print(diff_table(result.diff, f"fact diff: {schema.name} v{schema.version}"))
        out.print(outcome_line(result.outcome, result.diff))
        out.print(text(result.summary_line()))
        for sentence in result.coverage.dropped if result.coverage else ():
            out.print(text(f"  not covered, dropped: {sentence.text}"))
    sys.exit(result.outcome.exit_code)


@click.command("extract")
@click.argument("source", type=str)
@click.option("--schema", "schema_option", callback=not_blank, help=SCHEMA_HELP)
@click.option("--reference", help=REFERENCE_HELP)
@setting_options("extractor", *MODEL_KEYS)
@model_param_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@db_option
def extract_command(
    source: str,
    schema_option: str | None,
    reference: str | None,
    model_params: tuple[str, ...],
    as_json: bool,
    db: str,
    **options: object,
) -> None:
    """Extract the typed fact record of SOURCE, with evidence spans.

    --extractor picks who extracts: rules (the default), provider:model (the model's own
    record, validated: what that model finds in this entry) or jury:provider:model (rules
    and the model merged, as compress and demote use it).
    """
    schema = resolve_schema(schema_option, db)
    source_text = read_text(source)
    settings = settings_from(options, model_params)
    from factdiff.providers import meter

    with meter.metered() as usage:
        record = _extractor(settings).extract(source_text, schema, _reference(reference))
    many = {spec.name: spec.many for spec in schema.fields}
    data: dict[str, JSON] = {
        **record.public_json(many),
        "extractor": record.extractor,
        "usage": usage.snapshot(),
    }
    if as_json:
        echo_json(data)
        return
    facts_table = table(
        "field",
        "value",
        "evidence",
        title=f"facts: {schema.name} v{schema.version} ({record.extractor})",
    )
    for name, facts in record.fields.items():
        for fact in facts or ():
            facts_table.add_row(text(name), text(fact.value.display()), text(repr(fact.text)))
    for fact_type, facts in sorted(record.inventory.items()):
        for fact in facts:
            facts_table.add_row(
                text(f"inventory.{fact_type.value}"),
                text(fact.value.display()),
                text(repr(fact.text)),
            )
    console().print(facts_table)


def _extractor(settings: Settings) -> Extractor:
    """The extractor of ``--extractor``: a plain ``provider:model`` is the model alone (not
    held to the rules floor), so that what the model itself finds is shown."""
    from factdiff.compression.components import (
        call_policy,
        extractor_from_spec,
        model_params,
    )
    from factdiff.providers.spec import is_model_spec, parse_model_spec

    if not is_model_spec(settings.extractor):
        return extractor_from_spec(settings.extractor, settings.models)
    from factdiff.extraction.llm import LLMExtractor

    model = parse_model_spec(settings.extractor)
    return LLMExtractor(
        model,
        max_tokens=settings.max_tokens,
        policy=call_policy(settings.models),
        params=model_params(model.name, settings.models),
    )
