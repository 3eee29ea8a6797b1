"""``schema list``: every registered schema version with who uses it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.values.base import JSON

__all__ = ["schema_listing"]


def schema_listing(store: MemoryStore) -> list[dict[str, JSON]]:
    """One object per registered version: ``name``, ``version``, ``hash``, ``registered_at``
    (ISO), ``latest`` (the version new compressions use), ``warm_entries`` (compressed under
    it) and ``used_by`` (``{"agent", "tag"}`` assignments of the name; ``tag`` None for an
    agent's default; listed on the latest version, which they compress with)."""
    registered = store.registered_schemas()
    latest: dict[str, int] = {}
    for item in registered:
        latest[item.name] = max(latest.get(item.name, 0), item.version)
    users: dict[str, list[dict[str, str | None]]] = {}
    for agent, tag, name in store.agent_schema_assignments():
        users.setdefault(name, []).append({"agent": agent, "tag": tag or None})
    warm = {name: store.warm_schema_versions(name) for name in latest}
    return [
        {
            "name": item.name,
            "version": item.version,
            "hash": item.hash,
            "registered_at": item.registered_at.isoformat(),
            "latest": item.version == latest[item.name],
            "warm_entries": warm[item.name].get(item.version, 0),
            "used_by": users.get(item.name, []) if item.version == latest[item.name] else [],
        }
        for item in registered
    ]
