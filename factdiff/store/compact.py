"""Compact encodings of a warm entry's fact record and of attempt diffs (encoding 1).

**Record.** A stored fact record (``FactRecord.to_json()``) repeats, for every fact, its
surface text, which the source already holds at the fact's first span. The compact form
leaves it out: inside a fact (a JSON object with non-empty ``spans``) every string equal to
``source[start:end]`` of its first span becomes the marker ``"\\u0000"`` (a string starting
with NUL is escaped with a second NUL), and the ``text`` key is dropped when it is that
surface text. Keys are shortened by a fixed table (a key outside it is written with a ``~``
prefix), and the result is canonical JSON. ``unpack_record`` needs the same source (the cold
archive) and gives back exactly the record that was packed: ``pack_record`` checks the round
trip, so the record's digest (``factdiff.extraction.record`` tagged digest) re-derives unchanged.

**Diffs.** ``pack_diff`` shortens an attempt's diff by the same key table and leaves out the
summary values of fields kept with the source's very values; ``pack_payload`` does so for an
event payload's diff. The warm meta's encoding is ``factdiff.store.compact_meta``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from factdiff.errors import StoreError

RECORD_ENCODING = 1
"""The version of the compact encoding (the warm row's ``encoding`` column)."""

_MARK = "\0"
_KEYS = {
    "amount": "a",
    "arguments": "ar",
    "binding": "b",
    "context": "cx",
    "cue": "c",
    "currency": "cu",
    "date": "dt",
    "day": "d",
    "distance": "ds",
    "extractor": "e",
    "fields": "f",
    "form": "fo",
    "hash": "h",
    "hour": "ho",
    "inventory": "i",
    "kind": "k",
    "minute": "mi",
    "month": "mo",
    "name": "n",
    "negated": "ng",
    "occurrences": "oc",
    "offset_minutes": "om",
    "polarity": "p",
    "reference": "r",
    "result": "re",
    "roles": "ro",
    "same_clause": "sc",
    "schema": "sh",
    "second": "se",
    "spans": "s",
    "text": "t",
    "time": "ti",
    "type": "y",
    "tz": "z",
    "unit": "u",
    "value": "v",
    "version": "ve",
    "year": "yr",
    # attempt diffs
    "added": "ad",
    "changed": "ch",
    "criticality": "cr",
    "field": "fl",
    "missing": "ms",
    "source_values": "sv",
    "summary_values": "uv",
    "verdict": "vd",
}
_NAMES = {short: key for key, short in _KEYS.items()}
assert len(_NAMES) == len(_KEYS)


class CompactError(StoreError, ValueError):
    """A compact record, meta or packed payload that cannot be encoded or decoded (corrupt,
    or another version); the store reports it as an ``IntegrityError`` for the entry."""


def _dump(data: Any) -> bytes:
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _key(key: str) -> str:
    return _KEYS.get(key, "~" + key)


def _unkey(key: str) -> str:
    if key.startswith("~"):
        return key[1:]
    try:
        return _NAMES[key]
    except KeyError:
        raise CompactError(f"unknown compact key {key!r}") from None


def _surface(node: Mapping[str, Any], source: str, outer: str | None) -> str | None:
    spans = node.get("spans")
    if isinstance(spans, list) and spans:
        first = spans[0]
        if (
            isinstance(first, list)
            and len(first) == 2
            and isinstance(first[0], int)
            and isinstance(first[1], int)
            and 0 <= first[0] <= first[1] <= len(source)
        ):
            return source[first[0] : first[1]]
    return outer


_SCALARS = frozenset({int, float, bool, type(None)})
"""Leaf types returned as they are by every walk below (checked by exact type: the walks
visit every node of a record, and a call per number costs more than the rest)."""


def _pack(node: Any, source: str, surface: str | None) -> Any:
    kind = type(node)
    if kind is dict:
        return _pack_dict(node, source, surface)
    if kind is list:
        return [item if type(item) in _SCALARS else _pack(item, source, surface) for item in node]
    if isinstance(node, str):
        if surface is not None and node == surface:
            return _MARK
        return _MARK + node if node.startswith(_MARK) else node
    if isinstance(node, list):
        return [_pack(item, source, surface) for item in node]
    if isinstance(node, dict):
        return _pack_dict(node, source, surface)
    return node


def _pack_dict(node: dict[str, Any], source: str, surface: str | None) -> dict[str, Any]:
    inner = _surface(node, source, surface)
    drop_text = inner is not None and "spans" in node
    packed: dict[str, Any] = {}
    for k, v in node.items():
        if drop_text and k == "text" and v == inner:
            continue
        key = _KEYS.get(k, "~" + k)
        packed[key] = v if type(v) in _SCALARS else _pack(v, source, inner)
    return packed


def _unpack(node: Any, source: str, surface: str | None) -> Any:
    kind = type(node)
    if kind is dict:
        return _unpack_dict(node, source, surface)
    if kind is list:
        return [item if type(item) in _SCALARS else _unpack(item, source, surface) for item in node]
    if isinstance(node, str):
        if node == _MARK:
            if surface is None:
                raise CompactError("compact record refers to a surface text outside any fact")
            return surface
        return node[1:] if node.startswith(_MARK) else node
    if isinstance(node, list):
        return [_unpack(item, source, surface) for item in node]
    if isinstance(node, dict):
        return _unpack_dict(node, source, surface)
    return node


def _unpack_dict(node: dict[str, Any], source: str, surface: str | None) -> dict[str, Any]:
    names = _NAMES
    out = {names.get(k) or _unkey(k): v for k, v in node.items()}
    inner = _surface(out, source, surface)
    result = {k: v if type(v) in _SCALARS else _unpack(v, source, inner) for k, v in out.items()}
    if "spans" in result and inner is not None and "text" not in result and result["spans"]:
        result["text"] = inner
    return result


def pack_record(record: Mapping[str, Any], source: str) -> bytes:
    """The compact JSON of ``record`` against its ``source`` (checked to round-trip)."""
    packed = _dump(_pack(dict(record), source, None))
    if unpack_record(packed, source) != record:
        # a record whose facts do not quote their source (never made by an extractor):
        # keep every string, drop nothing
        packed = _dump({"~": _pack_keys_only(dict(record))})
        if unpack_record(packed, source) != record:  # pragma: no cover - keys are a bijection
            raise CompactError("fact record does not round-trip through its compact form")
    return packed


def _unpack_keys_only(node: Any) -> Any:
    """Inverse of ``_pack_keys_only``: names back, escaped strings as written, and no text
    derived from spans (the record was kept verbatim because it does not quote its source)."""
    if isinstance(node, str):
        return node[1:] if node.startswith(_MARK) else node
    if isinstance(node, list):
        return [_unpack_keys_only(item) for item in node]
    if isinstance(node, dict):
        names = _NAMES
        return {(names.get(k) or _unkey(k)): _unpack_keys_only(v) for k, v in node.items()}
    return node


def _pack_keys_only(node: Any) -> Any:
    if isinstance(node, str):
        return _MARK + node if node.startswith(_MARK) else node
    if isinstance(node, list):
        return [_pack_keys_only(item) for item in node]
    if isinstance(node, dict):
        return {_key(k): _pack_keys_only(v) for k, v in node.items()}
    return node


def unpack_record(packed: bytes, source: str) -> dict[str, Any]:
    """Inverse of ``pack_record``."""
    try:
        data = json.loads(bytes(packed).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompactError(f"compact record is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise CompactError("compact record is not a JSON object")
    if set(data) == {"~"}:
        verbatim = _unpack_keys_only(data["~"])
        if not isinstance(verbatim, dict):
            raise CompactError("compact record is not a JSON object")
        return verbatim
    result = _unpack(data, source, None)
    assert isinstance(result, dict)
    return result


# -- attempt diffs ------------------------------------------------------------------------


def _keys_only(node: Any, unkey: bool) -> Any:
    if not isinstance(node, (list, dict)):
        return node
    if isinstance(node, list):
        return [item if type(item) in _SCALARS else _keys_only(item, unkey) for item in node]
    if unkey:
        names = _NAMES
        return {
            (names.get(k) or _unkey(k)): v if type(v) in _SCALARS else _keys_only(v, unkey)
            for k, v in node.items()
        }
    keys = _KEYS
    return {
        keys.get(k, "~" + k): v if type(v) in _SCALARS else _keys_only(v, unkey)
        for k, v in node.items()
    }


def _kept_same(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("verdict") == "kept"
        and isinstance(item.get("source_values"), list)
        and item.get("summary_values") == item.get("source_values")
    )


class _LastDiff(threading.local):
    """This thread's last diff packed (its canonical JSON) and its packed form."""

    key: bytes = b""
    packed: Any = None


_LAST_DIFF = _LastDiff()


def pack_diff(diff: Any) -> Any:
    """An attempt's diff with short keys, and without the summary values of the fields kept
    with the very values of the source (most of them); checked to round-trip, else kept
    whole under ``"~"``. A demotion stores its diff twice, in the attempt row and in its
    event: the second time, a diff whose canonical JSON is the one this thread packed last
    gets that packed form (a third of the work). Callers never change what it returns."""
    last = _LAST_DIFF
    try:
        key = _dump(diff)
    except (TypeError, ValueError):  # not JSON: packed as it is, never remembered
        return _packed_diff(diff)
    if key == last.key:
        return last.packed
    packed = _packed_diff(diff)
    last.key, last.packed = key, packed
    return packed


def _packed_diff(diff: Any) -> Any:
    packed: Any = diff
    if isinstance(diff, dict) and isinstance(diff.get("fields"), list):
        fields = [
            {k: v for k, v in item.items() if k != "summary_values"} if _kept_same(item) else item
            for item in diff["fields"]
        ]
        packed = {**diff, "fields": fields}
    short = _keys_only(packed, unkey=False)
    if unpack_diff(short) == diff:
        return short
    return {"~": diff}


def unpack_diff(packed: Any) -> Any:
    """Inverse of ``pack_diff``."""
    if isinstance(packed, dict) and set(packed) == {"~"}:
        return packed["~"]
    diff = _keys_only(packed, unkey=True)
    if isinstance(diff, dict) and isinstance(diff.get("fields"), list):
        for item in diff["fields"]:
            if (
                isinstance(item, dict)
                and item.get("verdict") == "kept"
                and isinstance(item.get("source_values"), list)
                and "summary_values" not in item
            ):
                item["summary_values"] = list(item["source_values"])
    return diff


def pack_payload(payload: Any) -> Any:
    """An event payload with its ``diff`` (if any) as ``pack_diff`` makes it:
    ``[rest, packed diff]``, or ``[payload]`` without one."""
    if isinstance(payload, dict) and "diff" in payload:
        rest = {k: v for k, v in payload.items() if k != "diff"}
        return [rest, pack_diff(payload["diff"])]
    return [payload]


def unpack_payload(packed: Any) -> Any:
    """Inverse of ``pack_payload``."""
    if not isinstance(packed, list) or len(packed) not in (1, 2):
        raise CompactError("packed event payload is not [payload] or [rest, diff]")
    if len(packed) == 1:
        return packed[0]
    rest = packed[0]
    if not isinstance(rest, dict):
        raise CompactError("packed event payload has no object")
    return {**rest, "diff": unpack_diff(packed[1])}


def dump(data: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, no spaces; NUL allowed: never stored as text)."""
    return _dump(data)
