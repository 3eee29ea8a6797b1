"""Registered schema versions, each with its diff from the version before, and the
re-evaluation status (``dashboard.reevaluation_status``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from factdiff.ops import dashboard

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

__all__ = ["field_diff", "schema_history"]


def schema_history(store: MemoryStore) -> dict[str, Any]:
    """``{"schemas": [{"name", "versions": [{"version", "hash", "fields", "diff"}]}],
    "reevaluation"}``; ``diff`` (added/removed/changed fields) is ``None`` for a first
    version."""
    names: dict[str, list[dict[str, Any]]] = {}
    for name, version, digest in store.schema_versions():
        fields = _fields(store.get_schema_definition(name, version).definition)
        versions = names.setdefault(name, [])
        before = versions[-1]["_fields"] if versions else None
        versions.append(
            {
                "version": version,
                "hash": digest,
                "fields": sorted(fields),
                "diff": None if before is None else field_diff(before, fields),
                "_fields": fields,
            }
        )
    return {
        "schemas": [
            {
                "name": name,
                "versions": [
                    {k: v for k, v in item.items() if k != "_fields"}
                    for item in sorted(versions, key=lambda v: int(v["version"]))
                ],
            }
            for name, versions in sorted(names.items())
        ],
        "reevaluation": dashboard.reevaluation_status(store),
    }


def field_diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[str]]:
    """Fields added, removed and changed between two definitions' ``fields``."""
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(f for f in set(old) & set(new) if old[f] != new[f]),
    }


def _fields(definition: dict[str, Any]) -> dict[str, Any]:
    fields = definition.get("fields", {})
    return dict(fields) if isinstance(fields, dict) else {}
