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
from collections.abc import Callable
from typing import Any

from factdiff.errors import InputError

__all__ = ["UnreadableText", "loads", "loads_toml"]


class UnreadableText(InputError, ValueError):
    """The text is not a document the parser can read; the message says why."""


def loads(text: str | bytes) -> Any:
    """``text`` as JSON; ``UnreadableText`` says why it is not."""
    return _parse(json.loads, text, json.JSONDecodeError)


def loads_toml(text: str) -> dict[str, Any]:
    """``text`` as TOML; ``UnreadableText`` says why it is not."""
    parsed: dict[str, Any] = _parse(tomllib.loads, text, tomllib.TOMLDecodeError)
    return parsed


def _parse(parse: Callable[[Any], Any], text: Any, decode_error: type[ValueError]) -> Any:
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
