"""Registered schema versions, each with its diff from the version before, and the
re-evaluation status (``dashboard.reevaluation_status``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdiff.ops import dashboard

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.values.base import JSON

__all__ = ["field_diff", "schema_history"]


def schema_history(store: MemoryStore) -> dict[str, JSON]:
    """``{"schemas": [{"name", "versions": [{"version", "hash", "fields", "diff"}]}],
    "reevaluation"}``; ``diff`` (added/removed/changed fields) is ``None`` for a first
    version."""
    names: dict[str, list[tuple[int, dict[str, JSON], dict[str, JSON]]]] = {}
    for name, version, digest in store.schema_versions():
        fields = _fields(store.get_schema_definition(name, version).definition)
        versions = names.setdefault(name, [])
        before = versions[-1][2] if versions else None
        shown: dict[str, JSON] = {
            "version": version,
            "hash": digest,
            "fields": sorted(fields),
            "diff": None if before is None else field_diff(before, fields),
        }
        versions.append((version, shown, fields))
    return {
        "schemas": [
            {
                "name": name,
                "versions": [shown for _, shown, _ in sorted(versions, key=lambda v: v[0])],
            }
            for name, versions in sorted(names.items())
        ],
        "reevaluation": dashboard.reevaluation_status(store),
    }


def field_diff(old: dict[str, JSON], new: dict[str, JSON]) -> dict[str, list[str]]:
    """Fields added, removed and changed between two definitions' ``fields``."""
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(f for f in set(old) & set(new) if old[f] != new[f]),
    }


def _fields(definition: dict[str, JSON]) -> dict[str, JSON]:
    fields = definition.get("fields", {})
    return dict(fields) if isinstance(fields, dict) else {}
