"""The schema registry: versioned schema definitions and which schema an agent's (or a
tag's) entries use.

``SchemaRegistry`` is a repository over the store's ``Database``; ``MemoryStore`` forwards
its methods. A new registration appends its event through the store's event writer.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from factdiff.schema.names import check_reference
from factdiff.store import codec
from factdiff.store.database import Database
from factdiff.store.event_log import AppendEvents
from factdiff.store.model import (
    EventType,
    NewEvent,
    SchemaNotRegistered,
    SchemaVersionConflict,
    StoredSchema,
)


class SchemaRegistry:
    """The schema registry of one store (see the module docstring)."""

    def __init__(self, db: Database, append_events: AppendEvents) -> None:
        self._db = db
        self._append_events = append_events
        self._hashes: dict[tuple[str, int], str] = {}
        db.on_rollback.append(self._hashes.clear)  # a rolled-back registration may not exist

    def registered_hash(self, name: str, version: int) -> str | None:
        """The registered hash of schema ``name`` ``version`` (``None``: not registered),
        cached once found: a registered version never changes hash."""
        found = self._hashes.get((name, version))
        if found is None:
            row = self._db.row("select_schema", name=name, version=int(version))
            if row is None:
                return None
            found = self._hashes[(name, version)] = str(row["hash"])
        return found

    def register_schema(
        self,
        name: str,
        version: int,
        hash: str,
        definition: Mapping[str, Any],
        *,
        source_text: str | None = None,
        now: datetime,
    ) -> bool:
        """Register a schema version; ``True`` if new, ``False`` if already registered.

        The same name and version with another hash raises ``SchemaVersionConflict``.
        A new registration appends a ``schema_registered`` event.
        """
        db = self._db
        now_us = codec.to_micros(now, "now")
        params: dict[str, str | int | None] = {
            "name": codec.check_text(name, "schema name"),
            "version": int(version),
            "hash": hash,
            "definition": codec.dump_json(dict(definition), "schema definition"),
            "source_text": None
            if source_text is None
            else codec.check_text(source_text, "schema source"),
            "now": now_us,
        }

        def registered() -> bool:
            row = db.row("select_schema", name=name, version=int(version))
            if row is None:
                return False
            if row["hash"] == hash:
                return True
            raise SchemaVersionConflict(
                f"schema {name!r} version {version} is already registered with hash "
                f"{row['hash']}, not {hash}: bump the schema's version"
            )

        def work() -> bool:
            if registered():
                return False
            if db.count("insert_schema", **params) != 1:
                registered()  # a concurrent registration won: same hash, or a conflict
                return False
            payload = {"name": name, "version": int(version), "hash": hash}
            event = NewEvent(EventType.SCHEMA_REGISTERED, payload)
            self._append_events([event], None, None, now_us)
            return True

        return db.write(work)

    def get_schema_definition(self, name: str, version: int | None = None) -> StoredSchema:
        """A registered schema version (the latest when ``version`` is ``None``)."""
        if version is None:
            row = self._db.row("select_latest_schema", name=name)
        else:
            row = self._db.row("select_schema", name=name, version=int(version))
        if row is None:
            which = "any version" if version is None else f"version {version}"
            raise SchemaNotRegistered(
                f"schema {name!r} ({which}) is not registered in this store: register it first"
            )
        source = None if row["source_text"] is None else str(row["source_text"])
        return StoredSchema(
            int(row["version"]), str(row["hash"]), codec.load_json(row["definition"]), source
        )

    def schema_versions(self) -> list[tuple[str, int, str]]:
        """Every registered schema version as ``(name, version, hash)``, by name and version."""
        db = self._db
        rows = db.rows(db.sql("select_schema_versions"), {})
        return [(str(row["name"]), int(row["version"]), str(row["hash"])) for row in rows]

    def set_agent_schema(
        self, agent_id: str, schema_name: str | None, tag: str | None = None
    ) -> None:
        """Map an agent (or one of its tags) to a schema name; ``None`` removes the mapping."""
        db = self._db
        key = "" if tag is None else codec.check_text(tag, "tag")

        def work() -> None:
            if schema_name is None:
                db.exec("delete_agent_schema", agent=agent_id, tag=key)
            else:
                name = check_reference(schema_name)
                db.exec("upsert_agent_schema", agent=agent_id, tag=key, schema_name=name)

        db.write(work)

    def schema_for(self, agent_id: str, tags: tuple[str, ...] = ()) -> str | None:
        """The schema for an agent's entry: the first of ``tags`` with a mapping wins, then
        the agent's default, else ``None``."""
        db = self._db
        rows = db.rows(db.sql("select_agent_schemas"), {"agent": agent_id})
        mapping = {str(row["tag"]): str(row["schema_name"]) for row in rows}
        for tag in tags:
            if tag and tag in mapping:
                return mapping[tag]
        return mapping.get("")
