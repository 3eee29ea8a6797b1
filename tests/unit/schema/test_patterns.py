"""Schema patterns run on RE2: linear time, clear errors, edge lookarounds."""

from __future__ import annotations

import pytest

from factdiff.errors import SchemaError
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.schema.patterns import compile_pattern
from factdiff.values.base import FactType
from factdiff.verify.check import extract


def _schema(pattern: str) -> FactSchema:
    spec = FieldSpec("ref", FactType.IDENTIFIER, Criticality.CRITICAL, pattern=pattern, many=True)
    return FactSchema.build("p", 1, fields=[spec])


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    record = extract("a" * 5_000 + "b", _schema(r"(a+)+$"))
    assert record.fields["ref"] == ()


def test_edge_lookarounds_are_checked_on_each_match() -> None:
    pattern = compile_pattern(r"(?<![\w-])[a-z]+-\d{1,3}(?![\w-]|\.\w)", "hosts")
    text = "api-3 and x_api-4, db-12.x, web-7."
    assert [text[s:e] for s, e in pattern.spans(text)] == ["api-3", "web-7"]


def test_group_one_is_the_value() -> None:
    record = extract("see invoice INV-12 and INV-13", _schema(r"invoice (INV-\d+)"))
    assert [f.value.canonical() for f in record.fields["ref"]] == ["INV-12"]
    assert record.fields["ref"][0].binding.strong


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(\w)\1", "RE2"),
        (r"a(?=b)c", "RE2"),
        (r"a++", "RE2"),
        (r"(a)(b)", "at most one"),
        (r"(", "invalid"),
    ],
)
def test_unsupported_syntax_is_a_schema_error_naming_the_field(pattern: str, reason: str) -> None:
    with pytest.raises(SchemaError, match=reason) as info:
        _schema(pattern)
    assert info.value.field == "ref"
