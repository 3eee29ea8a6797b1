"""The JSON forms of stored things (from ``factdiff.present.documents``) and short table details."""

from __future__ import annotations

from collections.abc import Mapping

from factdiff.inputs.json_toml import JSON, json_objects
from factdiff.present.documents import attempt_json, entry_json, event_json

__all__ = ["attempt_json", "entry_json", "event_detail", "event_json"]


def event_detail(payload: Mapping[str, JSON]) -> str:
    """A short description of an event's payload for tables (the diff, else its reason)."""
    diff = payload.get("diff")
    if isinstance(diff, dict):
        return (
            ", ".join(
                f"{k}: " + ", ".join(str(i.get("field")) for i in json_objects(diff.get(k)))
                for k in ("missing", "changed", "added")
                if diff.get(k)
            )
            or "nothing lost"
        )
    for key in ("error", "reason", "note"):
        if payload.get(key):
            return str(payload[key])
    return ""
