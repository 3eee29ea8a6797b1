"""JSON and TOML a caller wrote (a JSON Lines line, ``--metadata``, a cursor, a settings
value or file): parsed, or one line saying why not.

The standard parsers raise more than their decode errors: ``RecursionError`` for arrays or
tables nested deeper than the interpreter's recursion limit, and a bare ``ValueError`` for an
integer of more than ``sys.get_int_max_str_digits()`` digits. ``loads`` and ``loads_toml``
turn every one of them into ``UnreadableText`` (an ``InputError``, also a ``ValueError``)
with a message fit for the person who sent the text; the caller adds where it came from.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from factdiff.errors import InputError

__all__ = [
    "JSON",
    "UnreadableText",
    "json_array",
    "json_int",
    "json_object",
    "json_objects",
    "loads",
    "loads_toml",
]

JSON = Mapping[str, "JSON"] | Sequence["JSON"] | str | int | float | bool | None
"""A JSON-compatible Python value (dict, list, str, int, float, bool, None)."""

T = TypeVar("T")
R = TypeVar("R")


class UnreadableText(InputError, ValueError):
    """The text is not a document the parser can read; the message says why."""


def json_object(value: JSON) -> Mapping[str, JSON]:
    """``value``, a JSON object; ``TypeError`` when it is something else."""
    if type(value) is dict or isinstance(value, Mapping):  # a dict skips the ABC check
        return value
    raise TypeError(f"expected a JSON object, got {type(value).__name__}")


def json_array(value: JSON) -> Sequence[JSON]:
    """``value``, a JSON array; ``TypeError`` when it is something else."""
    if isinstance(value, list) or (isinstance(value, Sequence) and not isinstance(value, str)):
        return value
    raise TypeError(f"expected a JSON array, got {type(value).__name__}")


def json_objects(value: JSON | None) -> list[Mapping[str, JSON]]:
    """The JSON objects in ``value`` when it is an array (none when it is not)."""
    if isinstance(value, list):
        return [item for item in value if isinstance(item, Mapping)]
    return []


def json_int(value: JSON) -> int:
    """``int(value)`` of a number or a numeric string; ``TypeError`` for anything else."""
    if type(value) is int:
        return value
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"expected a number, got {type(value).__name__}")


def loads(text: str | bytes) -> JSON:
    """``text`` as JSON; ``UnreadableText`` says why it is not."""
    parsed: JSON = _parse(json.loads, text, json.JSONDecodeError)
    return parsed


def loads_toml(text: str) -> dict[str, object]:
    """``text`` as TOML (its values: JSON's and dates and times); ``UnreadableText`` says
    why it is not."""
    return _parse(tomllib.loads, text, tomllib.TOMLDecodeError)


def _parse(parse: Callable[[T], R], text: T, decode_error: type[ValueError]) -> R:
    try:
        return parse(text)
    except RecursionError:
        raise UnreadableText(
            "arrays or objects nested too deeply to read: flatten the document"
        ) from None
    except decode_error as exc:
        if isinstance(exc, json.JSONDecodeError):
            line = f"line {exc.lineno} " if exc.lineno > 1 else ""
            raise UnreadableText(f"{exc.msg} at {line}column {exc.colno}") from None
        raise UnreadableText(str(exc)) from None
    except ValueError as exc:  # the interpreter's bound on integer digits
        if "integer string conversion" not in str(exc):
            raise UnreadableText(str(exc).splitlines()[0]) from None
        limit = sys.get_int_max_str_digits()
        raise UnreadableText(
            f"a number has more than {limit} digits: send it as a string"
        ) from None
