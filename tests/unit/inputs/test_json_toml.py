"""JSON and TOML from callers: every failure of the standard parsers is one ``UnreadableText``."""

from __future__ import annotations

import sys

import pytest

from factdiff.inputs import json_toml
from factdiff.inputs.json_toml import JSON

DIGITS = sys.get_int_max_str_digits()


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('{"n": ' + "1" * (DIGITS + 1) + "}", f"a number has more than {DIGITS} digits"),
        ('{"n": 1,}', "at column 9"),
        ('{\n"n": }', "at line 2 column 6"),
        (b'{"n": "\xff"}', "can't decode"),
    ],
)
def test_json_a_parser_cannot_read(text: str | bytes, needle: str) -> None:
    with pytest.raises(json_toml.UnreadableText, match=needle):
        json_toml.loads(text)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
        ("a = " + "1" * (DIGITS + 1), "a number has more than"),
        ("a = [", "Invalid"),
    ],
)
def test_toml_a_parser_cannot_read(text: str, needle: str) -> None:
    with pytest.raises(json_toml.UnreadableText, match=needle):
        json_toml.loads_toml(text)


def test_what_parses_is_returned() -> None:
    assert json_toml.loads('{"n": [1, 2.5, "x"]}') == {"n": [1, 2.5, "x"]}
    assert json_toml.loads_toml("a = [1, 2]") == {"a": [1, 2]}


def test_json_readers_return_the_shape_asked_for_or_raise_type_error() -> None:
    assert json_toml.json_object({"a": 1}) == {"a": 1}
    assert json_toml.json_array([1, "x"]) == [1, "x"]
    assert [json_toml.json_int(v) for v in (3, 3.0, "3", True)] == [3, 3, 3, 1]
    not_objects: list[JSON] = [[1], "ab", 2, None]
    not_arrays: list[JSON] = ["ab", {"a": 1}, 2, None]
    not_numbers: list[JSON] = [[1], {"a": 1}, None]
    for wrong in not_objects:
        with pytest.raises(TypeError, match="JSON object"):
            json_toml.json_object(wrong)
    for wrong in not_arrays:
        with pytest.raises(TypeError, match="JSON array"):
            json_toml.json_array(wrong)
    for wrong in not_numbers:
        with pytest.raises(TypeError, match="number"):
            json_toml.json_int(wrong)
