"""The schema registry of ``MemoryStore``: versioned schema definitions and which schema an
agent's (or a tag's) entries use."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from factdiff.schema.names import check_reference
from factdiff.store import codec
from factdiff.store.model import (
    EventType,
    NewEvent,
    SchemaNotRegistered,
    SchemaVersionConflict,
    StoredSchema,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


def _store(mixin: SchemaRegistryMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class SchemaRegistryMixin:
    """The schema registry of ``MemoryStore`` (see the module docstring)."""

    _registered_hashes: dict[tuple[str, int], str]

    def _registered_hash(self, name: str, version: int) -> str | None:
        """The registered hash of schema ``name`` ``version`` (``None``: not registered),
        cached once found: a registered version never changes hash."""
        found = self._registered_hashes.get((name, version))
        if found is None:
            row = _store(self)._row("select_schema", name=name, version=int(version))
            if row is None:
                return None
            found = self._registered_hashes[(name, version)] = str(row["hash"])
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
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        params: dict[str, Any] = {
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
            row = store._row("select_schema", name=name, version=int(version))
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
            if store._count("insert_schema", **params) != 1:
                registered()  # a concurrent registration won: same hash, or a conflict
                return False
            payload = {"name": name, "version": int(version), "hash": hash}
            event = NewEvent(EventType.SCHEMA_REGISTERED, payload)
            store._append_events([event], None, None, now_us)
            return True

        return store._write(work)

    def get_schema_definition(self, name: str, version: int | None = None) -> StoredSchema:
        """A registered schema version (the latest when ``version`` is ``None``)."""
        store = _store(self)
        if version is None:
            row = store._row("select_latest_schema", name=name)
        else:
            row = store._row("select_schema", name=name, version=int(version))
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
        store = _store(self)
        rows = store._rows(store._sql("select_schema_versions"), {})
        return [(str(row["name"]), int(row["version"]), str(row["hash"])) for row in rows]

    def set_agent_schema(
        self, agent_id: str, schema_name: str | None, tag: str | None = None
    ) -> None:
        """Map an agent (or one of its tags) to a schema name; ``None`` removes the mapping."""
        store = _store(self)
        key = "" if tag is None else codec.check_text(tag, "tag")

        def work() -> None:
            if schema_name is None:
                store._exec("delete_agent_schema", agent=agent_id, tag=key)
            else:
                name = check_reference(schema_name)
                store._exec("upsert_agent_schema", agent=agent_id, tag=key, schema_name=name)

        store._write(work)

    def schema_for(self, agent_id: str, tags: tuple[str, ...] = ()) -> str | None:
        """The schema for an agent's entry: the first of ``tags`` with a mapping wins, then
        the agent's default, else ``None``."""
        store = _store(self)
        rows = store._rows(store._sql("select_agent_schemas"), {"agent": agent_id})
        mapping = {str(row["tag"]): str(row["schema_name"]) for row in rows}
        for tag in tags:
            if tag and tag in mapping:
                return mapping[tag]
        return mapping.get("")
