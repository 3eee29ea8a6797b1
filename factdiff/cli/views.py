"""The JSON forms of stored things (from ``factdiff.present.documents``) and short table details."""

from __future__ import annotations

from typing import Any

from factdiff.present.documents import attempt_json, entry_json, event_json

__all__ = ["attempt_json", "entry_json", "event_detail", "event_json"]


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
