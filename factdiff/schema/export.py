"""What a schema tells the models: a JSON Schema for constrained extraction, and the summary
constraints text that names what a summarizer must keep."""

from __future__ import annotations

from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import JSON, FactType

_DECIMAL: dict[str, JSON] = {"type": "string", "pattern": r"^-?\d+(\.\d+)?$"}
_VALUE_SCHEMAS: dict[FactType, dict[str, JSON]] = {
    FactType.IDENTIFIER: {"type": "string", "description": "exactly as written"},
    FactType.MONEY: {
        "type": "object",
        "properties": {"amount": _DECIMAL, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}},
        "required": ["amount", "currency"],
        "additionalProperties": False,
    },
    FactType.NUMBER: _DECIMAL,
    FactType.PERCENT: _DECIMAL,
    FactType.QUANTITY: {
        "type": "object",
        "properties": {"amount": _DECIMAL, "unit": {"type": "string"}},
        "required": ["amount", "unit"],
        "additionalProperties": False,
    },
    FactType.DATE: {"type": "string", "description": "ISO 8601 date, YYYY-MM-DD"},
    FactType.DATETIME: {"type": "string", "description": "ISO 8601 date and time with offset"},
    FactType.TIME: {"type": "string", "description": "HH:MM, 24-hour, with zone if stated"},
    FactType.DURATION: {"type": "string", "description": "as stated, e.g. '7 business days'"},
    FactType.PERSON: {"type": "string", "description": "the person's name"},
    FactType.ORGANIZATION: {"type": "string", "description": "the organisation's name"},
    FactType.EMAIL: {"type": "string"},
    FactType.PHONE: {"type": "string"},
    FactType.URL: {"type": "string"},
    FactType.BOOLEAN: {"type": "boolean"},
    FactType.TEXT: {"type": "string"},
    FactType.DECISION: {"type": "string", "description": "the decision as stated"},
    FactType.TOOL_CALL: {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "arguments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                    "required": ["name", "value"],
                    "additionalProperties": False,
                },
            },
            "result": {"type": "string", "description": "the call's result as stated"},
        },
        "required": ["name", "arguments", "result"],
        "additionalProperties": False,
    },
}


def value_schema(spec: FieldSpec) -> dict[str, JSON]:
    """The JSON Schema of one value of ``spec``."""
    if spec.type is FactType.ENUM:
        return {"type": "string", "enum": [o.value for o in spec.options]}
    return dict(_VALUE_SCHEMAS[spec.type])


def _grounded(value: dict[str, JSON], description: str) -> dict[str, JSON]:
    return {
        "type": "object",
        "description": description,
        "properties": {
            "value": value,
            "quote": {"type": "string", "description": "the exact text the value was read from"},
        },
        "required": ["value", "quote"],
        "additionalProperties": False,
    }


def json_schema(schema: FactSchema) -> dict[str, JSON]:
    """JSON Schema (2020-12) for an LLM extraction of ``schema``, strict-mode compatible.

    Every field is required; a single field is ``null`` when the text does not state it, a
    many-valued field an empty list. Each value carries the quote it was read from.
    """
    properties: dict[str, JSON] = {}
    for spec in schema.fields:
        description = spec.description or f"{spec.type.value} ({spec.criticality.value})"
        item = _grounded(value_schema(spec), description)
        if spec.many:
            properties[spec.name] = {"type": "array", "items": item}
        else:
            properties[spec.name] = {"anyOf": [item, {"type": "null"}]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{schema.name} v{schema.version}",
        "description": schema.description,
        "type": "object",
        "properties": properties,
        "required": [spec.name for spec in schema.fields],
        "additionalProperties": False,
    }


def summary_constraints(schema: FactSchema) -> str:
    """Plain-language instructions naming the facts a summary must keep."""
    lines = [
        f"The summary is checked against the fact schema '{schema.name}' v{schema.version}.",
        "Keep every fact below exactly: you may reformat a value, never change or drop it.",
        "Do not state any fact that the source does not state.",
    ]
    for criticality in (Criticality.CRITICAL, Criticality.IMPORTANT):
        specs = [s for s in schema.fields if s.criticality is criticality]
        if specs:
            lines.append(f"{criticality.value.capitalize()} fields (must be kept):")
            lines.extend(
                f"- {s.name} ({s.type.value}{', every one' if s.many else ''})"
                + (f": {s.description}" if s.description else "")
                for s in specs
            )
    tracked = [
        t.value for t, c in sorted(schema.inventory.items()) if c is not Criticality.CONTEXTUAL
    ]
    if tracked:
        lines.append(
            "Also keep every " + ", ".join(tracked) + " the source states, wherever it is."
        )
    return "\n".join(lines)
