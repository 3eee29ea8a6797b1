"""A framework's JSON value as the text of an entry: canonical JSON (sorted keys, no
whitespace, non-ASCII kept), so the same value is always the same text and content hash.

``render`` refuses, naming where, the first part JSON cannot hold as it was given (a key that
is not a string, a set, bytes, NaN...): nothing is converted behind the caller's back; tuples
are written as lists, as JSON has no tuples. ``load_object`` reads such a text back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

from factdiff.errors import InputError

__all__ = ["load_object", "render"]


def render(value: Mapping[str, object], what: str) -> str:
    """``value`` as canonical JSON; ``InputError`` naming ``what`` and the path inside it of
    the first part that is not JSON."""
    _check(value, what)
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def load_object(text: str) -> dict[str, object] | None:
    """The JSON object ``text`` holds, or ``None`` when it holds none (an entry's text that
    ``factdiff correct`` changed into prose, for example)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _check(value: object, path: str) -> None:
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{path} is {value}: JSON has no NaN or infinity; store a string")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(
                    f"{path} has the key {key!r} ({type(key).__name__}): "
                    "JSON object keys are strings; convert it first"
                )
            _check(item, f"{path}[{key!r}]")
        return
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        for index, item in enumerate(value):
            _check(item, f"{path}[{index}]")
        return
    raise InputError(
        f"{path} is a {type(value).__name__}: store JSON values only "
        "(str, int, float, bool, None, lists and dicts of them)"
    )
