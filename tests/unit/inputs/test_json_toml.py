"""JSON and TOML from callers: every failure of the standard parsers is one ``UnreadableText``."""

from __future__ import annotations

import sys

import pytest

from factdiff.inputs import json_toml

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
