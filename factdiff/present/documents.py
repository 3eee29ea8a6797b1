"""The JSON documents of stored things, shared by the CLI's ``--json`` and the HTTP API.

``show_document`` is ``factdiff show --json`` and ``GET /v1/entries/{id}``;
``search_document`` is ``factdiff search --json`` and ``GET /v1/search``; the ``check --json``
document is ``CheckResult.to_json`` (``factdiff.verify.check``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factdiff.retrieve.hits import SearchHit
    from factdiff.store import AttemptRecord, Entry, Event, MemoryStore
    from factdiff.values.base import JSON

__all__ = ["attempt_json", "entry_json", "event_json", "search_document", "show_document"]


def entry_json(entry: Entry) -> dict[str, JSON]:
    """An entry as JSON (content or warm view included when loaded)."""
    data: dict[str, JSON] = {
        "id": entry.id,
        "agent_id": entry.agent_id,
        "tier": entry.tier.value,
        "status": entry.status.value,
        "occurred_at": entry.occurred_at.isoformat() if entry.occurred_at else None,
        "created_at": entry.created_at.isoformat(),
        "last_used_at": entry.last_used_at.isoformat(),
        "schema": entry.schema_name,
        "tags": list(entry.tags),
        "metadata": entry.metadata,
        "content_hash": entry.content_hash,
        "size_bytes": entry.size_bytes,
        "attempt_count": entry.attempt_count,
        "next_attempt_at": entry.next_attempt_at.isoformat() if entry.next_attempt_at else None,
    }
    if entry.content is not None:
        data["content"] = entry.content
    if entry.warm is not None:
        data["warm"] = {
            "narrative": entry.warm.narrative,
            "record": entry.warm.record,
            "meta": entry.warm.meta.to_json(),
        }
    return data


def attempt_json(attempt: AttemptRecord) -> dict[str, JSON]:
    """One compression attempt as JSON."""
    return {
        "attempt_no": attempt.attempt_no,
        "rung": attempt.rung,
        "summarizer": attempt.summarizer,
        "extractor": attempt.extractor,
        "method_version": attempt.method_version,
        "outcome": attempt.outcome.value,
        "budget_words": attempt.budget_words,
        "summary": attempt.summary,
        "diff": attempt.diff,
        "duration_ms": attempt.duration_ms,
        "tokens_in": attempt.tokens_in,
        "tokens_out": attempt.tokens_out,
        "cost_usd": str(attempt.cost_usd) if attempt.cost_usd is not None else None,
        "error": attempt.error,
        "started_at": attempt.started_at.isoformat(),
    }


def event_json(event: Event) -> dict[str, JSON]:
    """One event as JSON."""
    return {
        "id": event.id,
        "type": event.type.value,
        "entry_id": event.entry_id,
        "agent_id": event.agent_id,
        "at": event.at.isoformat(),
        "payload": event.payload,
    }


def show_document(store: MemoryStore, entry_id: str) -> dict[str, JSON]:
    """``{"entry", "attempts", "events"}``: an entry in any tier with its history."""
    entry = store.get(entry_id)
    return {
        "entry": entry_json(entry),
        "attempts": [attempt_json(a) for a in store.attempts(entry_id)],
        "events": [event_json(e) for e in store.events(entry_id)],
    }


def search_document(query: str, hits: Sequence[SearchHit]) -> dict[str, JSON]:
    """``{"query", "hits"}``, each hit as ``SearchHit.to_json``."""
    return {"query": query, "hits": [hit.to_json() for hit in hits]}
