"""Schema hashes stored once: attempts and events name a registered schema by name and
version, and its hash comes back from the registry when they are read.

A fact diff names its schema as ``{"hash", "name", "version"}``, and every attempt row
names it in ``schema_name`` / ``schema_version`` / ``schema_hash``. The hash is 71
characters that no compression shrinks, written up to three times per demotion (the
attempt's column, its packed diff, the event's packed diff). A registered name and version
never change hash (``register_schema`` refuses another one), so when the hash is the
registered one the store writes ``ELIDED`` in the diff and ``NULL`` in the column, and puts
the registered hash back on reading. A hash that is not the registered one (or of a schema
not registered) is stored as it is. Rows written before keep their hashes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from factdiff.store.model import AttemptRecord, Event, NewEvent

Registered = Callable[[str, int], "str | None"]
"""The registered hash of a schema name and version (``None`` when not registered)."""

ELIDED = 0
"""The stored ``hash`` of a diff's schema that is the registered one."""


def _schema(diff: Any) -> dict[str, Any] | None:
    schema = diff.get("schema") if isinstance(diff, dict) else None
    if not isinstance(schema, dict) or set(schema) != {"hash", "name", "version"}:
        return None
    name, version = schema["name"], schema["version"]
    if not isinstance(name, str) or type(version) is not int:
        return None
    return schema


def _is_elided(value: Any) -> bool:
    return type(value) is int and value == ELIDED


def elide_diff(diff: Any, registered: Registered) -> Any:
    """``diff`` with its schema's hash ``ELIDED`` when it is the registered one."""
    schema = _schema(diff)
    if schema is None or registered(schema["name"], schema["version"]) != schema["hash"]:
        return diff
    return {**diff, "schema": {**schema, "hash": ELIDED}}


def restore_diff(diff: Any, registered: Registered) -> Any:
    """Inverse of ``elide_diff``; ``ValueError`` if the schema is no longer registered."""
    schema = _schema(diff)
    if schema is None or not _is_elided(schema["hash"]):
        return diff
    found = registered(schema["name"], schema["version"])
    if found is None:
        raise ValueError(f"schema {schema['name']} v{schema['version']} is not registered")
    return {**diff, "schema": {**schema, "hash": found}}


def elide_event(event: NewEvent, registered: Registered) -> NewEvent:
    """``event`` with the schema hash of its payload's diff elided (see ``elide_diff``)."""
    payload = event.payload
    if not isinstance(payload, dict) or "diff" not in payload:
        return event
    return NewEvent(event.type, {**payload, "diff": elide_diff(payload["diff"], registered)})


def restore_event(event: Event, registered: Registered) -> Event:
    """Inverse of ``elide_event`` on a stored event."""
    payload = event.payload
    if not isinstance(payload, dict) or "diff" not in payload:
        return event
    diff = restore_diff(payload["diff"], registered)
    if diff is payload["diff"]:
        return event
    return replace(event, payload={**payload, "diff": diff})


def elide_attempt(attempt: AttemptRecord, registered: Registered) -> AttemptRecord:
    """``attempt`` as stored: its diff's schema hash elided and its ``schema_hash`` ``None``
    when both are the registered hash of its schema."""
    diff = elide_diff(attempt.diff, registered)
    name, version = attempt.schema_name, attempt.schema_version
    known = None if name is None or version is None else registered(name, int(version))
    schema_hash = (
        None if known is not None and known == attempt.schema_hash else attempt.schema_hash
    )
    return replace(attempt, diff=diff, schema_hash=schema_hash)


def restore_attempt(attempt: AttemptRecord, registered: Registered) -> AttemptRecord:
    """Inverse of ``elide_attempt`` on a stored attempt."""
    name, version = attempt.schema_name, attempt.schema_version
    schema_hash = attempt.schema_hash
    if schema_hash is None and name is not None and version is not None:
        schema_hash = registered(name, int(version))
    return replace(attempt, diff=restore_diff(attempt.diff, registered), schema_hash=schema_hash)
