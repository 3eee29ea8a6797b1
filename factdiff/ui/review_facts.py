"""What the review pages say about an entry beside its text: the schema it is compressed
with, resolved as demotion resolves it, and why it waits for review."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from factdiff.retrieve.schemas import GENERIC, SchemaResolver
from factdiff.store import EntryStatus

if TYPE_CHECKING:
    from factdiff.store import AttemptRecord, Entry, MemoryStore
    from factdiff.values.base import JSON

__all__ = ["review_state", "schema_used"]


def schema_used(
    store: MemoryStore,
    entry: Entry,
    attempts: Sequence[AttemptRecord],
    resolver: SchemaResolver | None = None,
) -> dict[str, JSON]:
    """``{"name", "version", "from"}``: the schema of the entry's last attempt (the version it
    used), else the one demotion would use now, with its latest version (``None`` when that
    name is neither registered nor built in). ``from`` says where the name comes from, as
    demotion resolves it: ``entry`` (its own), ``agent`` (assigned to its agent or a tag of
    it), ``default`` (``generic``)."""
    assigned = None if entry.schema_name else store.schema_for(entry.agent_id, entry.tags)
    origin = "entry" if entry.schema_name else "agent" if assigned else "default"
    for attempt in reversed(attempts):
        if attempt.schema_name:
            return {"name": attempt.schema_name, "version": attempt.schema_version, "from": origin}
    reference = entry.schema_name or assigned or GENERIC
    found = (resolver or SchemaResolver(store)).get(reference)
    if found is None:
        return {"name": reference, "version": None, "from": origin}
    return {"name": found.name, "version": found.version, "from": origin}


def review_state(store: MemoryStore, entry: Entry) -> dict[str, str] | None:
    """``{"reason", "detail"}`` of an entry in review (its last escalation: ``max_attempts``,
    ``provider_unavailable``, ``refused_input``...); None for an entry not in review."""
    if entry.status is not EntryStatus.REVIEW:
        return None
    return store.review_reason(entry.id) or {"reason": "unknown", "detail": ""}
