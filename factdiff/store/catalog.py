"""The schema catalog of one store: registered versions, built-ins, per-agent assignment."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from factdiff.errors import UsageError
from factdiff.schema.builtin import builtin_schema, builtin_schema_names, builtin_schema_source
from factdiff.schema.loader import schema_from_definition, schema_from_yaml
from factdiff.schema.model import FactSchema
from factdiff.schema.names import split_version
from factdiff.store import Entry, MemoryStore, SchemaNotRegistered

GENERIC = "generic"


class SchemaCatalog:
    """Finds the schema of an entry: its own, else its agent's (per tag), else ``generic``.

    Built-in schemas (``generic``, ``customer_service``...) register themselves on first use,
    so every warm entry's schema hash can be looked up in the store later.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._cache: dict[tuple[str, int | None], FactSchema] = {}

    def register(self, schema: FactSchema, now: datetime, source_text: str | None = None) -> bool:
        """Register a schema version; True if it was new."""
        return self.store.register_schema(
            schema.name,
            schema.version,
            schema.hash,
            schema.definition(),
            source_text=source_text,
            now=now,
        )

    def get(self, name: str, now: datetime, version: int | None = None) -> FactSchema:
        """A registered schema (latest version by default; ``NAME@VERSION`` names one),
        registering a built-in if needed."""
        if version is None:
            name, version = split_version(name)
        key = (name, version)
        if key in self._cache:
            return self._cache[key]
        try:
            stored = self.store.get_schema_definition(name, version)
            schema = rebuild_schema(name, stored.definition, stored.source_text, stored.hash)
        except SchemaNotRegistered:
            if name != GENERIC and name not in builtin_schema_names():
                which = "" if version is None else f" version {version}"
                raise UsageError(
                    f"schema {name!r}{which} is not registered; run `factdiff schema register "
                    "FILE` (`factdiff schema list` shows what is)"
                ) from None
            schema = builtin_schema(name)
            if version is not None and schema.version != version:
                raise UsageError(f"schema {name!r} has no version {version}") from None
            self.register(schema, now, builtin_schema_source(name))
        self._cache[key] = schema
        return schema

    def name_for(self, entry: Entry) -> str:
        """The schema name an entry is compressed with."""
        return entry.schema_name or self.store.schema_for(entry.agent_id, entry.tags) or GENERIC

    def for_entry(self, entry: Entry, now: datetime) -> FactSchema:
        """The schema an entry is compressed with."""
        return self.get(self.name_for(entry), now)


def rebuild_schema(
    name: str, definition: dict[str, Any], source_text: str | None, digest: str
) -> FactSchema:
    """The stored schema, from its YAML when kept (field order as written), else its definition."""
    if source_text:
        schema = schema_from_yaml(source_text, f"<store>/{name}.yaml")
        if schema.hash == digest:
            return schema
    return schema_from_definition(definition, f"<store>/{name}")
