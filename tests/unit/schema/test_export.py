"""The JSON Schema for constrained LLM output and the summary constraints text."""

from __future__ import annotations

from typing import Any

from factdiff.schema.export import json_schema, summary_constraints
from factdiff.schema.model import FactSchema


def test_json_schema_is_strict_mode_shaped(customer_service: FactSchema) -> None:
    exported: Any = json_schema(customer_service)
    assert exported["additionalProperties"] is False
    assert set(exported["required"]) == {s.name for s in customer_service.fields}
    total = exported["properties"]["invoice_total"]["anyOf"][0]
    assert total["required"] == ["value", "quote"]
    assert total["properties"]["value"]["required"] == ["amount", "currency"]
    assert exported["properties"]["tool_calls"]["type"] == "array"


def test_summary_constraints_name_critical_fields(customer_service: FactSchema) -> None:
    text = summary_constraints(customer_service)
    assert "invoice_total" in text
    assert "Critical fields" in text
    assert "tone" not in text  # contextual fields are not demanded
