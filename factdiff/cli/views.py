"""The JSON forms of stored things, shared by every command's ``--json`` output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from factdiff.store import AttemptRecord, Entry, Event


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as JSON (content or warm view included when loaded)."""
    data: dict[str, Any] = {
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


def attempt_json(attempt: AttemptRecord) -> dict[str, Any]:
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


def event_json(event: Event) -> dict[str, Any]:
    """One event as JSON."""
    return {
        "id": event.id,
        "type": event.type.value,
        "entry_id": event.entry_id,
        "agent_id": event.agent_id,
        "at": event.at.isoformat(),
        "payload": event.payload,
    }


def event_detail(payload: dict[str, Any]) -> str:
    """A short description of an event's payload for tables (the diff, else its reason)."""
    diff = payload.get("diff")
    if isinstance(diff, dict):
        return (
            ", ".join(
                f"{k}: " + ", ".join(str(i.get("field")) for i in diff.get(k, []))
                for k in ("missing", "changed", "added")
                if diff.get(k)
            )
            or "nothing lost"
        )
    for key in ("error", "reason", "note"):
        if payload.get(key):
            return str(payload[key])
    return ""
