"""The compact encoding of a warm entry's compression meta.

``split_meta`` turns ``WarmMeta.to_json()`` into identities (schema, extractor, summarizer,
method, and the meta's shape), stored once in ``store_identities`` and referenced by the warm
row; the source facts digest as 32 bytes (none when it is the stored record's own); and the
rest as canonical JSON with short keys, leaving out what the row already holds (the source
content hash is the entry's, ``compressed_at`` the row's, ``lost_important_fields`` the known
gaps' fields), the check's coverage as one list ``[sentences, verified, facts kept,
dropped, runs]`` (``runs``: the dropped sentences' spans packed as text by
``coverage_meta.pack_runs``; left out when there are none). ``join_meta`` is its
inverse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from factdiff.store.compact import CompactError
from factdiff.store.compact import dump as _dump
from factdiff.store.coverage_meta import pack_runs, unpack_runs

_META_SHORT = {
    "attempt_count": "a",
    "budget_words": "b",
    "compressed_at": "c",
    "coverage": "v",
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
_COVERAGE_KEYS = ("sentences", "verified", "facts_kept", "dropped")


def _short_value(key: str, value: Any) -> Any:
    """Outcomes as one letter, known gaps as ``[field, criticality, type]`` lists (an
    unexpected value is kept as it is, marked by its form), coverage as one list."""
    if key == "outcome" and isinstance(value, str):
        return _OUTCOMES.get(value, "~" + value)
    if key == "coverage" and _is_coverage(value):
        counts = [value[k] for k in _COVERAGE_KEYS]
        return [*counts, pack_runs(value["u"])] if value["u"] else counts
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
    if key == "coverage" and isinstance(value, list) and len(value) in (4, 5):
        packed = value[4] if len(value) == 5 else None
        runs = unpack_runs(packed) if isinstance(packed, str) else []
        if len(value) == 5 and not runs:
            raise ValueError("compact coverage has no runs where it says it has")
        return {**dict(zip(_COVERAGE_KEYS, value[:4], strict=True)), "u": runs}
    if key == "known_gaps" and isinstance(value, list):
        return [
            dict(zip(_GAP_KEYS, g, strict=True)) if isinstance(g, list) and len(g) == 3 else g
            for g in value
        ]
    return value


def _is_coverage(value: Any) -> bool:
    """A coverage object of the form ``CheckCoverage.to_json`` makes (else kept as is)."""
    return (
        isinstance(value, dict)
        and set(value) == {*_COVERAGE_KEYS, "u"}
        and all(type(value[k]) is int for k in _COVERAGE_KEYS)
        and isinstance(value["u"], list)
        and len(value["u"]) % 2 == 0
        and all(type(n) is int and n >= 0 for n in value["u"])
    )


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
