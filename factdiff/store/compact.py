"""Compact encodings of a warm entry's fact record and compression meta (encoding 1).

**Record.** A stored fact record (``FactRecord.to_json()``) repeats, for every fact, its
surface text, which the source already holds at the fact's first span. The compact form
leaves it out: inside a fact (a JSON object with non-empty ``spans``) every string equal to
``source[start:end]`` of its first span becomes the marker ``"\\u0000"`` (a string starting
with NUL is escaped with a second NUL), and the ``text`` key is dropped when it is that
surface text. Keys are shortened by a fixed table (a key outside it is written with a ``~``
prefix), and the result is canonical JSON. ``unpack_record`` needs the same source (the cold
archive) and gives back exactly the record that was packed: ``pack_record`` checks the round
trip, so the record's digest (``factdiff.extraction.record`` tagged digest) re-derives unchanged.

**Meta.** ``split_meta`` turns ``WarmMeta.to_json()`` into identities (schema, extractor,
summarizer, method), stored once in ``store_identities`` and referenced by the warm row; the
source facts digest as 32 bytes; and the rest as canonical JSON with short keys, leaving out
what the row already holds (the source content hash is the entry's, ``compressed_at`` the
row's, ``lost_important_fields`` the known gaps' fields). ``join_meta`` is its inverse.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
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


# -- meta ---------------------------------------------------------------------------------

_META_SHORT = {
    "attempt_count": "a",
    "budget_words": "b",
    "compressed_at": "c",
    "known_gaps": "g",
    "lost_important_fields": "l",
    "outcome": "o",
    "rung": "r",
    "source_content_hash": "h",
    "source_facts_digest": "d",
}
_META_LONG = {short: key for key, short in _META_SHORT.items()}
IDENTITY_KINDS = ("schema", "extractor", "summarizer", "method")
_IDENTITY_KEYS = {
    "schema": "schema",
    "extractor": "extractor",
    "summarizer": "summarizer",
    "method": "method_version",
}
SHAPE = "shape"
"""The identity kind holding a meta's rung, outcome and attempt count (compact JSON): few
distinct values, shared by every entry compressed alike, so stored once with the others."""
_SHAPE_KEYS = ("a", "o", "r")
_SHA256 = "sha256:"


@dataclass(frozen=True)
class SplitMeta:
    """A warm entry's meta as stored: identities (kind -> value), digest bytes, the rest."""

    identities: Mapping[str, str]
    facts_digest: bytes | None
    rest: bytes


def identity_value(kind: str, value: Any) -> str:
    """The stored text of an identity (a schema reference as canonical JSON)."""
    return _dump(value).decode("utf-8") if kind == "schema" else str(value)


def split_meta(
    meta: Mapping[str, Any],
    content_hash: str,
    compressed_at: str,
    record_digest: str | None = None,
) -> SplitMeta:
    """``meta`` (``WarmMeta.to_json()``) as identities (schema, extractor, summarizer,
    method, and its ``SHAPE``: rung, outcome, attempt count), digest bytes and compact rest;
    ``content_hash`` and ``compressed_at`` (ISO) are what the row holds already, and
    ``record_digest`` the digest of the record stored with it: a source facts digest equal
    to it is not stored again (the search index keeps it, as the reference ``verify``
    checks the record against)."""
    rest = dict(meta)
    identities: dict[str, str] = {}
    for kind in IDENTITY_KINDS:
        key = _IDENTITY_KEYS[kind]
        if key in rest and (kind == "schema" or isinstance(rest[key], str)):
            identities[kind] = identity_value(kind, rest.pop(key))
    digest: bytes | None = None
    found = rest.get("source_facts_digest")
    if found is not None and found == record_digest:
        del rest["source_facts_digest"]
    elif isinstance(found, str) and _is_sha256(found):
        digest = bytes.fromhex(found[len(_SHA256) :])
        del rest["source_facts_digest"]
    if rest.get("source_content_hash") == content_hash:
        del rest["source_content_hash"]
    if rest.get("compressed_at") == compressed_at:
        del rest["compressed_at"]
    gaps = rest.get("known_gaps")
    if isinstance(gaps, list) and rest.get("lost_important_fields") == [
        g.get("field") if isinstance(g, dict) else None for g in gaps
    ]:
        del rest["lost_important_fields"]
    if rest.get("known_gaps") == [] and "lost_important_fields" not in rest:
        del rest["known_gaps"]
    short = {_META_SHORT.get(k, "~" + k): _short_value(k, v) for k, v in rest.items()}
    shape = {k: short.pop(k) for k in _SHAPE_KEYS if _is_shape_value(short.get(k))}
    if shape:
        identities[SHAPE] = _dump(shape).decode("utf-8")
    split = SplitMeta(identities, digest, _dump(short))
    if join_meta(split, content_hash, compressed_at, record_digest) != dict(
        meta
    ):  # pragma: no cover
        raise CompactError("compression meta does not round-trip through its compact form")
    return split


def join_meta(
    split: SplitMeta, content_hash: str, compressed_at: str, record_digest: str | None = None
) -> dict[str, Any]:
    """Inverse of ``split_meta`` (``record_digest``: the digest of the record read back)."""
    try:
        short = json.loads(bytes(split.rest).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompactError(f"compact meta is not JSON: {exc}") from None
    if not isinstance(short, dict):
        raise CompactError("compact meta is not a JSON object")
    shape = json.loads(split.identities[SHAPE]) if SHAPE in split.identities else {}
    if not isinstance(shape, dict) or set(shape) - set(_SHAPE_KEYS) or set(shape) & set(short):
        raise CompactError("compact meta shape is not rung, outcome and attempt count")
    short = {**short, **shape}
    meta: dict[str, Any] = {}
    for key, value in short.items():
        if key.startswith("~"):
            meta[key[1:]] = value
        elif key in _META_LONG:
            meta[_META_LONG[key]] = _long_value(_META_LONG[key], value)
        else:
            raise CompactError(f"unknown compact meta key {key!r}")
    meta.setdefault("known_gaps", [])
    for kind, value in split.identities.items():
        if kind != SHAPE:
            meta[_IDENTITY_KEYS[kind]] = json.loads(value) if kind == "schema" else value
    if split.facts_digest is not None:
        meta["source_facts_digest"] = _SHA256 + bytes(split.facts_digest).hex()
    elif "source_facts_digest" not in meta and record_digest is not None:
        meta["source_facts_digest"] = record_digest
    meta.setdefault("source_content_hash", content_hash)
    meta.setdefault("compressed_at", compressed_at)
    gaps = meta.get("known_gaps")
    if isinstance(gaps, list) and "lost_important_fields" not in meta:
        meta["lost_important_fields"] = [
            g.get("field") if isinstance(g, dict) else None for g in gaps
        ]
    return meta


_OUTCOMES = {"clean": "c", "acceptable_with_notes": "a"}
_OUTCOME_NAMES = {short: name for name, short in _OUTCOMES.items()}
_GAP_KEYS = ("field", "criticality", "type")


def _short_value(key: str, value: Any) -> Any:
    """Outcomes as one letter, known gaps as ``[field, criticality, type]`` lists (an
    unexpected value is kept as it is, marked by its form)."""
    if key == "outcome" and isinstance(value, str):
        return _OUTCOMES.get(value, "~" + value)
    if key == "known_gaps" and isinstance(value, list):
        return [
            [g[k] for k in _GAP_KEYS]
            if isinstance(g, dict) and tuple(sorted(g)) == tuple(sorted(_GAP_KEYS))
            else g
            for g in value
        ]
    return value


def _long_value(key: str, value: Any) -> Any:
    if key == "outcome" and isinstance(value, str):
        return value[1:] if value.startswith("~") else _OUTCOME_NAMES.get(value, value)
    if key == "known_gaps" and isinstance(value, list):
        return [
            dict(zip(_GAP_KEYS, g, strict=True)) if isinstance(g, list) and len(g) == 3 else g
            for g in value
        ]
    return value


def _is_shape_value(value: Any) -> bool:
    """A small int or a one-letter outcome: what a shape holds (anything else stays put)."""
    if type(value) is int:
        return 0 <= value < 1000
    return value in _OUTCOME_NAMES


def _is_sha256(text: str) -> bool:
    hexpart = text[len(_SHA256) :]
    return (
        text.startswith(_SHA256)
        and len(hexpart) == 64
        and all(c in "0123456789abcdef" for c in hexpart)
    )
