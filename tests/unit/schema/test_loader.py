"""Fact schemas: the contract YAML loads; bad schemas fail with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.errors import SchemaError
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.schema.loader import load_schema, schema_from_dict, schema_from_yaml
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import FactType, Precision

VALID = """\
schema: demo
version: 2
fields:
  order_id: {type: identifier, pattern: 'O-\\d+', criticality: critical}
  amount:   {type: money, criticality: critical, cues: [total], tolerance: 0.01}
  when:     {type: datetime, criticality: important, precision: minute}
  status:   {type: enum, criticality: important, values: {refunded: [money back], open: []}}
"""


def test_contract_schema_loads(customer_service: FactSchema) -> None:
    assert customer_service.name == "customer_service"
    assert customer_service.version == 2
    assert customer_service.hash.startswith("sha256:")
    assert customer_service.field("tool_calls").many
    assert customer_service.field("invoice_total").cues == ("totaling", "totals", "total")
    assert customer_service.inventory[FactType.TIME] is Criticality.IMPORTANT


def test_field_options_are_read() -> None:
    schema = schema_from_yaml(VALID, "demo.yaml")
    assert str(schema.field("amount").tolerance.absolute) == "0.01"
    assert schema.field("when").tolerance.precision is Precision.MINUTE
    status = schema.field("status")
    assert [o.value for o in status.options] == ["refunded", "open"]
    assert status.options[0].synonyms == ("money back",)


def test_hash_ignores_formatting_and_comments_but_not_content() -> None:
    a = schema_from_yaml(VALID, "a.yaml")
    b = schema_from_yaml("# comment\n" + VALID.replace("{type: money,", "{ type:  money ,"), "b")
    c = schema_from_yaml(VALID.replace("version: 2", "version: 3"), "c")
    assert a.hash == b.hash
    assert a.hash != c.hash


def test_python_schema_equals_yaml_schema() -> None:
    built = FactSchema.build(
        name="demo",
        version=1,
        fields=[FieldSpec("ref", FactType.IDENTIFIER, Criticality.CRITICAL, pattern=r"R\d+")],
    )
    loaded = schema_from_yaml(
        "schema: demo\nversion: 1\nfields:\n  ref: {type: identifier, criticality: critical,"
        " pattern: 'R\\d+'}\n"
    )
    assert built.hash == loaded.hash


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("schema: x\nversion: 1\nfields:\n  a: {type: money, criticality: critical\n", 5, "syntax"),
        ("schema: x\nversion: 1\nversion: 2\n", 3, "duplicate key 'version'"),
        (
            "schema: x\nversion: 1\nfields:\n"
            "  a: {type: money, criticality: critical, colour: 1}\n",
            4,
            "unknown key 'colour'",
        ),
        ("schema: x\nversion: 1\nfields:\n  a: {type: moneyy, criticality: critical}\n", 4, "type"),
        (
            "schema: x\nversion: 1\nfields:\n  a: {type: money, criticality: vital}\n",
            4,
            "criticality",
        ),
        (
            "schema: x\nversion: 1\nfields:\n  a: {type: identifier, criticality: critical,"
            " pattern: '(unclosed'}\n",
            4,
            "invalid regular expression",
        ),
        (
            "schema: x\nversion: !!python/object/apply:os.system ['true']\n",
            2,
            "unsupported YAML tag",
        ),
        (
            "schema: x\nversion: 1\nfields:\n"
            "  a: &a {type: money, criticality: critical}\n  b: *a\n",
            5,
            "aliases",
        ),
        ("schema: x\nversion: 1\nbase: &b {type: money}\nfields:\n  a: {<<: *b}\n", 5, "merge"),
        ("schema: x\nversion: 0123\n", 2, "version"),
        (
            "schema: x\nversion: 1\nfields:\n  a: {type: money, criticality: critical,"
            " precision: day}\n",
            4,
            "precision",
        ),
        ("schema: x\nversion: 1\nfields:\n  a: {type: enum, criticality: critical}\n", 4, "values"),
        ("schema: x\nversion: 1\ninventory: {enum: critical}\n", None, "inventory"),
        ("", None, "empty"),
    ],
)
def test_bad_schemas_name_file_line_and_problem(text: str, line: int | None, needle: str) -> None:
    with pytest.raises(SchemaError) as caught:
        schema_from_yaml(text, "bad.yaml")
    message = str(caught.value)
    assert message.startswith("bad.yaml"), message
    assert needle in message, message
    if line is not None:
        assert caught.value.line == line, message
    assert "\n" not in message


def test_error_names_the_field() -> None:
    with pytest.raises(SchemaError) as caught:
        schema_from_yaml(
            "schema: x\nversion: 1\nfields:\n  ok: {type: money, criticality: critical}\n"
            "  broken: {type: identifier, criticality: critical, pattern: '[a-'}\n",
            "f.yaml",
        )
    assert caught.value.field == "broken"
    assert caught.value.line == 5


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["schema: x", "version: 1", "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    with pytest.raises(SchemaError, match="aliases"):
        schema_from_yaml("\n".join(lines), "bomb.yaml")


def test_huge_schema_is_refused() -> None:
    with pytest.raises(SchemaError, match="larger than"):
        schema_from_yaml("schema: x\nversion: 1\ndescription: '" + "x" * 2_000_000 + "'\n")


def test_yaml_11_traps_stay_strings() -> None:
    schema = schema_from_yaml(
        "schema: x\nversion: 1\nfields:\n  a: {type: enum, criticality: critical,"
        " values: [no, on, 2024-01-01]}\n"
    )
    assert [o.value for o in schema.field("a").options] == ["no", "on", "2024-01-01"]


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="cannot read"):
        load_schema(tmp_path / "missing.yaml")
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("schema: caf\xe9\n".encode("latin-1"))
    with pytest.raises(SchemaError, match="not UTF-8"):
        load_schema(bad)


def test_dict_schemas_are_validated_too() -> None:
    with pytest.raises(SchemaError, match="unknown key"):
        schema_from_dict({"schema": "x", "version": 1, "feilds": {}})


def test_builtin_schemas() -> None:
    assert generic_schema().fields == ()
    assert generic_schema().inventory[FactType.URL] is Criticality.CONTEXTUAL
    assert builtin_schema("customer_service").name == "customer_service"
    with pytest.raises(KeyError):
        builtin_schema("nope")


def test_definition_round_trips_with_the_same_hash() -> None:
    from factdiff.schema.loader import schema_from_definition

    original = schema_from_yaml(VALID, "demo.yaml")
    rebuilt = schema_from_definition(original.definition())
    assert rebuilt == original
    assert rebuilt.hash == original.hash
