"""Redaction: an erased entry's events and attempts keep their structure, their values go.

``redact`` keeps a JSON value's shape and replaces every string and number with
``REDACTED``, except under ``KEPT_KEYS`` (the store's own vocabulary); the erasure
(``factdiff.store.erasure``) runs it over attempt rows and event payloads.
"""

from __future__ import annotations

from typing import Any

from factdiff.store import codec
from factdiff.store import rows as rowmap

__all__ = ["KEPT_KEYS", "REDACTED", "redact", "redact_json", "redacted_payload"]

REDACTED = "[erased]"
"""What every redacted value becomes."""

KEPT_KEYS = frozenset(
    {
        "attempt_no",
        "budget_words",
        "content_hash",
        "criticality",
        "extractor",
        "failure_class",
        "field",
        "method_version",
        "outcome",
        "rung",
        "size_bytes",
        "summarizer",
        "verdict",
    }
)
"""Keys whose values name the store's own vocabulary (schema fields, outcomes, hashes), never
an entry's content: a redaction keeps them, so audits and ``stats`` still count them."""


def redact(value: Any) -> Any:
    """``value`` with its structure kept and every string and number replaced by
    ``REDACTED`` (booleans and nulls stay; values under ``KEPT_KEYS`` stay)."""
    if isinstance(value, dict):
        return {k: v if k in KEPT_KEYS else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if value is None or isinstance(value, bool):
        return value
    return REDACTED


def redact_json(text: str | None) -> str | None:
    """A stored JSON text, redacted (text that is not JSON is replaced whole)."""
    if text is None:
        return None
    try:
        data = codec.load_json(text)
    except ValueError:
        return codec.dump_json(REDACTED, "redaction")
    return codec.dump_json(redact(data), "redaction")


def redacted_payload(text: str, packed: Any = None) -> str:
    """An event payload (its JSON text, or its packed form when ``packed`` is not null),
    redacted, marked ``"redacted": true`` (what the events trigger admits during an
    erasure)."""
    try:
        data = rowmap.event_payload(text, packed)
    except ValueError:
        data = None
    body = redact(data) if isinstance(data, dict) else {"payload": REDACTED}
    return codec.dump_json({**body, "redacted": True}, "redacted event payload")
