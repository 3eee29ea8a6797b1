"""Schema diffs: every kind of change, which ones make old compressions due; NAME@VERSION."""

from __future__ import annotations

import pytest

from factdiff.errors import InputError
from factdiff.ops.health import health_figure
from factdiff.schema.evolution import diff_schemas
from factdiff.schema.loader import schema_from_yaml
from factdiff.schema.names import split_version

OLD = """schema: s
version: 1
inventory: {identifier: critical, time: important, url: contextual}
fields:
  ref:   {type: identifier, pattern: 'R-\\d+', criticality: critical}
  total: {type: money, criticality: important, cues: [total]}
  note:  {type: text, criticality: contextual}
  gone:  {type: email, criticality: important}
"""


def changes(new_text: str) -> list[tuple[str, str, bool]]:
    old, new = schema_from_yaml(OLD, "old.yaml"), schema_from_yaml(new_text, "new.yaml")
    return [(c.field, c.change, c.material) for c in diff_schemas(old, new).changes]


def test_every_kind_of_change_is_named() -> None:
    new = """schema: s
version: 2
inventory: {identifier: critical, time: contextual, phone: critical}
fields:
  ref:   {type: identifier, pattern: 'R-\\d{4}', criticality: critical}
  total: {type: money, criticality: critical, cues: [total, sum], tolerance: 0.01}
  note:  {type: text, criticality: contextual, description: free text}
  added: {type: date, criticality: contextual}
"""
    assert changes(new) == [
        ("ref", "pattern", True),
        ("total", "criticality_raised", True),
        ("total", "cues", True),
        ("total", "tolerance", True),
        ("note", "description", False),
        ("added", "added", False),
        ("gone", "removed", False),
        ("inventory.phone", "added", True),
        ("inventory.time", "criticality_lowered", False),
        ("inventory.url", "removed", False),
    ]


def test_lowering_and_removing_is_not_material() -> None:
    new = OLD.replace("version: 1", "version: 2").replace(
        "total: {type: money, criticality: important",
        "total: {type: money, criticality: contextual",
    )
    old, lowered = schema_from_yaml(OLD, "o.yaml"), schema_from_yaml(new, "n.yaml")
    result = diff_schemas(old, lowered)
    assert not result.material
    assert result.to_json()["changes"] == [
        {
            "field": "total",
            "change": "criticality_lowered",
            "before": "important",
            "after": "contextual",
            "material": False,
        }
    ]
    assert diff_schemas(old, old).changes == ()


def test_name_at_version() -> None:
    assert split_version("travel") == ("travel", None)
    assert split_version("travel@3") == ("travel", 3)
    for bad in ("travel@", "@2", "travel@x", "travel@0"):
        with pytest.raises(InputError, match="NAME@VERSION"):
            split_version(bad)


def test_health_figure_follows_its_formula() -> None:
    assert health_figure(None, None, 0.0, None, 0.0) == 100.0
    assert health_figure(0.1, 0.2, 0.5, 0.25, 0.1) == round(100 * 0.7 * 0.75 * 0.75 * 0.9, 1)
    assert health_figure(0.1, -0.5, 0.0, None, 0.0) == 90.0
    assert health_figure(0.9, 0.5, 0.0, None, 0.0) == 0.0
