"""Mapping between stored rows and the store's dataclasses, and integrity checks on them."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from factdiff.errors import InputError
from factdiff.providers.accounting import ModelCall
from factdiff.store import codec, compact, frames
from factdiff.store.backends import protocol
from factdiff.store.model import (
    AttemptOutcome,
    AttemptRecord,
    Entry,
    EntryStatus,
    Event,
    EventType,
    IntegrityError,
    NewEvent,
    Tier,
)

Row = protocol.Row
PAGE_SIZE = 256
"""Rows per page of a keyset-paginated listing."""


def entry(row: Row) -> Entry:
    """An entry row: its 17 entry columns (``ENTRY_COLUMNS``), then any extra columns."""
    return Entry(
        id=str(row["id"]),
        agent_id=str(row["agent_id"]),
        tier=Tier(row["tier"]),
        status=EntryStatus(row["status"]),
        occurred_at=codec.local_datetime(row["occurred_at"], row["occurred_offset"]),
        created_at=codec.from_micros(row["created_at"]),
        last_used_at=codec.from_micros(row["last_used_at"]),
        metadata=codec.load_json(row["metadata"]),
        schema_name=None if row["schema_name"] is None else str(row["schema_name"]),
        tags=tuple(codec.load_json(row["tags"])),
        content_hash=str(row["content_hash"]),
        size_bytes=int(row["size_bytes"]),
        attempt_count=int(row["attempt_count"]),
        next_attempt_at=codec.opt_datetime(row["next_attempt_at"]),
        error_attempts=int(row["error_attempts"]),
        error_streak=int(row["error_streak"]),
    )


ENTRY_COLUMNS = 17
"""Columns of an entry in every entry row (``occurred_offset`` is the last of them)."""
FULL_WARM = ENTRY_COLUMNS + 1
"""Where the warm columns (``WARM_COLUMNS`` of them, read in order by
``factdiff.store.compact_storage``) start in ``select_entry_full``, after the entry's and
its hot ``content``."""


ATTEMPT_IDENTITY = "attempt"
"""The ``store_identities`` kind of an attempt's identities."""


def attempt_identity(a: AttemptRecord) -> str:
    """An attempt's identities as ``store_identities`` holds them: the compact JSON array
    ``[summarizer, extractor, method version, schema name, schema version]`` that the
    ``attempt_rows`` view reads back."""
    values = [
        codec.check_text(a.summarizer, "summarizer"),
        codec.check_text(a.extractor, "extractor"),
        codec.check_text(a.method_version, "method version"),
        None if a.schema_name is None else codec.check_text(a.schema_name, "schema name"),
        a.schema_version,
    ]
    return compact.dump(values).decode("utf-8")


def attempt_params(
    entry_id: str,
    attempt_no: int,
    a: AttemptRecord,
    identity_ref: int,
    narrative: str | None = None,
) -> dict[str, Any]:
    """An attempt's row, naming its identities by ``identity_ref`` (the ``store_identities``
    id of ``attempt_identity(a)``); its summary is left out when it is ``narrative`` (the
    warm narrative written with it)."""
    cost = a.cost_usd
    if cost is not None and not Decimal(cost).is_finite():
        raise InputError(f"attempt cost must be a finite number (got {cost})")
    return {
        "entry_id": entry_id,
        "attempt_no": attempt_no,
        "rung": int(a.rung),
        "identity_ref": identity_ref,
        "budget_words": a.budget_words,
        "outcome": AttemptOutcome(a.outcome).value,
        "diff": "",
        "summary": "",
        "packed": pack_attempt(a.diff, None if a.summary == narrative else a.summary),
        "started_at": codec.to_micros(a.started_at, "started_at"),
        "finished_at": codec.to_micros(a.finished_at, "finished_at"),
        "duration_ms": codec.finite_float(a.duration_ms, "duration_ms"),
        "tokens_in": a.tokens_in,
        "tokens_out": a.tokens_out,
        "cost_usd": None if cost is None else str(Decimal(cost)),
        "error": None if a.error is None else codec.dump_json(a.error, "attempt error"),
        "schema_hash": a.schema_hash,
        "failure_class": a.failure_class,
        "must_keep": None
        if a.must_keep is None
        else codec.dump_json(list(a.must_keep), "attempt must-keep facts"),
    }


def model_call_params(entry_id: str, attempt_no: int, call: ModelCall, at: int) -> dict[str, Any]:
    cost = call.cost_usd
    if cost is not None and not Decimal(cost).is_finite():
        raise InputError(f"model call cost must be a finite number (got {cost})")
    return {
        "entry_id": entry_id,
        "attempt_no": attempt_no,
        "role": codec.check_text(call.role, "call role"),
        "model": codec.check_text(call.model, "model"),
        "outcome": codec.check_text(call.outcome, "call outcome"),
        "http_calls": int(call.http_calls),
        "tokens_in": call.tokens_in,
        "tokens_out": call.tokens_out,
        "cost_usd": None if cost is None else str(Decimal(cost)),
        "duration_ms": codec.finite_float(call.duration_ms, "call duration_ms"),
        "at": at,
    }


def model_call(row: Row) -> tuple[int, ModelCall]:
    """``(attempt_no, call)`` of a ``select_model_calls`` row."""
    return int(row["attempt_no"]), ModelCall(
        role=str(row["role"]),
        model=str(row["model"]),
        outcome=str(row["outcome"]),
        http_calls=int(row["http_calls"]),
        tokens_in=row["tokens_in"],
        tokens_out=row["tokens_out"],
        cost_usd=None if row["cost_usd"] is None else Decimal(row["cost_usd"]),
        duration_ms=float(row["duration_ms"]),
    )


def attempt(row: Row, narrative: str | None = None) -> AttemptRecord:
    return AttemptRecord(
        id=int(row["id"]),
        entry_id=str(row["entry_id"]),
        attempt_no=int(row["attempt_no"]),
        rung=int(row["rung"]),
        summarizer=str(row["summarizer"]),
        extractor=str(row["extractor"]),
        method_version=str(row["method_version"]),
        budget_words=row["budget_words"],
        outcome=AttemptOutcome(row["outcome"]),
        diff=attempt_diff(row["diff"], row["packed"]),
        summary=attempt_summary(row["summary"], row["packed"], narrative),
        started_at=codec.from_micros(row["started_at"]),
        finished_at=codec.from_micros(row["finished_at"]),
        duration_ms=float(row["duration_ms"]),
        tokens_in=row["tokens_in"],
        tokens_out=row["tokens_out"],
        cost_usd=None if row["cost_usd"] is None else Decimal(row["cost_usd"]),
        error=None if row["error"] is None else str(codec.load_json(row["error"])),
        schema_name=row["schema_name"],
        schema_version=row["schema_version"],
        schema_hash=row["schema_hash"],
        failure_class=row["failure_class"],
        must_keep=None if row["must_keep"] is None else tuple(codec.load_json(row["must_keep"])),
    )


def pack_attempt(diff: Any, summary: str | None) -> bytes:
    """An attempt's diff and summary as stored: a primed frame (``frames.pack``) of
    ``[1, compact diff, summary]`` in canonical JSON (``compact.pack_diff``). The summary is
    ``null`` for the attempt that made the entry's warm row: it is the warm narrative, stored
    once (restore and promotion write it back here before the warm row goes). An erasure
    writes a redacted attempt's diff and summary as JSON text instead (``packed`` NULL)."""
    return frames.pack(compact.dump([1, compact.pack_diff(diff), summary]))


def unpack_attempt(packed: Any) -> tuple[Any, str | None]:
    """Inverse of ``pack_attempt``: ``(diff, summary or None)``."""
    found = codec.load_json(frames.unpack(bytes(packed)).decode("utf-8"))
    if not isinstance(found, list) or len(found) != 3 or found[0] != 1:
        raise ValueError("packed attempt is not [1, diff, summary]")
    summary = found[2]
    return compact.unpack_diff(found[1]), None if summary is None else str(summary)


def attempt_diff(diff_text: Any, packed: Any) -> Any:
    """An attempt's diff from its row (packed, or JSON text once redacted)."""
    return codec.load_json(str(diff_text)) if packed is None else unpack_attempt(packed)[0]


def attempt_summary(summary_text: Any, packed: Any, narrative: str | None = None) -> str:
    """An attempt's summary from its row (packed, or JSON text once redacted); ``narrative``
    is the warm narrative the attempt made, if it made the warm row."""
    if packed is None:
        return str(codec.load_json(str(summary_text)))
    summary = unpack_attempt(packed)[1]
    if summary is None:
        if narrative is None:
            raise ValueError("attempt summary refers to a warm narrative that is gone")
        return narrative
    return summary


def events(row: Row) -> list[Event]:
    """The events of an ``events`` row: one, or two when it has a ``then_type``, with ids
    ``id - 1`` and ``id``; both share the row's entry, agent and time."""
    halves = [(row["type"], row["payload"], row["packed"])]
    if row["then_type"] is not None:
        halves.append((row["then_type"], row["then_payload"], row["then_packed"]))
    first_id, at = int(row["id"]) - len(halves) + 1, codec.from_micros(row["at"])
    return [
        Event(
            id=first_id + offset,
            type=EventType(kind),
            entry_id=row["entry_id"],
            agent_id=row["agent_id"],
            at=at,
            payload=event_payload(text, packed),
        )
        for offset, (kind, text, packed) in enumerate(halves)
    ]


def event_rows(events: list[NewEvent]) -> list[tuple[str, str, bytes | None]]:
    """(type, payload JSON, packed payload) of each event, checked and packed before any
    write. The packed form, a primed frame (``frames.pack``) of ``compact.pack_payload`` in
    canonical JSON, is kept when it is smaller (the JSON text is then empty), else the JSON
    text."""
    rows: list[tuple[str, str, bytes | None]] = []
    for e in events:
        text = codec.dump_json(e.payload, f"{e.type} event payload")
        packed = frames.pack(compact.dump(compact.pack_payload(e.payload)))
        if len(packed) < len(text.encode("utf-8")):
            rows.append((EventType(e.type).value, "", packed))
        else:
            rows.append((EventType(e.type).value, text, None))
    return rows


def event_payload(text: Any, packed: Any) -> Any:
    """An event's payload from its row (packed, or JSON text: smaller, or redacted)."""
    if packed is None:
        return codec.load_json(str(text))
    data = codec.load_json(frames.unpack(bytes(packed)).decode("utf-8"))
    return compact.unpack_payload(data)


def is_current(entry: Entry, expected_attempts: int) -> bool:
    return (
        entry.tier is Tier.HOT
        and entry.status is EntryStatus.ACTIVE
        and entry.attempt_count == expected_attempts
    )


def is_due(entry: Entry) -> bool:
    return entry.tier is Tier.HOT and entry.status is EntryStatus.ACTIVE


def checked_cold(
    entry_id: str,
    source_codec: Any,
    packed: Any,
    entry_hash: str,
    dictionary: codec.CodecDictionary | None = None,
) -> bytes:
    """The source bytes of a warm row's archive (``source_codec``, ``packed``), decompressed
    (with ``dictionary`` when the archive was made with one) and checked against the entry's
    content hash."""
    if source_codec is None or packed is None:
        raise IntegrityError(entry_id, "warm entry has no cold archive")
    try:
        data = codec.unarchive(str(source_codec), packed, dictionary)
    except ValueError as exc:
        raise IntegrityError(entry_id, str(exc)) from None
    actual = codec.content_hash(data)
    if actual != entry_hash:
        raise IntegrityError(entry_id, f"cold archive hashes to {actual}, expected {entry_hash}")
    return data


def diff_fields(diff: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(diff, dict):
        return
    for kind in ("missing", "changed", "added"):
        items = diff.get(kind) or []
        for item in items if isinstance(items, list) else []:
            name = item.get("field") if isinstance(item, dict) else item
            if isinstance(name, str):
                yield kind, name
