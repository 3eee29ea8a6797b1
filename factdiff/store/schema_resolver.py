"""Which schema an entry is indexed and read with, without writing to the store.

The same resolution as demotion (``factdiff.store.catalog.SchemaCatalog``): the entry's own schema,
else its agent's (per tag), else ``generic``; a registered version wins over the built-in of
that name. Unlike the catalog it never registers anything, so it works inside a bulk add,
during a search and on a read-only store. A schema name that is neither registered nor built
in is indexed as ``generic`` (``add`` accepts any name; demotion reports it later).
"""

from __future__ import annotations

from typing import Protocol

from factdiff.errors import InputError
from factdiff.schema.builtin import builtin_schema, builtin_schema_names
from factdiff.schema.loader import schema_from_definition, schema_from_yaml
from factdiff.schema.model import FactSchema
from factdiff.schema.names import split_version
from factdiff.store.model import SchemaNotRegistered, StoredSchema

GENERIC = "generic"


class SchemaSource(Protocol):
    """Where a resolver reads schemas: a store (``MemoryStore``) or its ``SchemaRegistry``."""

    def schema_for(self, agent_id: str, tags: tuple[str, ...] = ()) -> str | None:
        """The schema assigned to ``agent_id`` for these tags (None: none)."""
        ...

    def get_schema_definition(self, name: str, version: int | None = None) -> StoredSchema:
        """A registered schema version (``SchemaNotRegistered`` if there is none)."""
        ...


class SchemaResolver:
    """Schemas by name and version for one store, cached for the resolver's lifetime."""

    def __init__(self, store: SchemaSource) -> None:
        self._store = store
        self._named: dict[tuple[str, int | None], FactSchema | None] = {}
        self._agents: dict[tuple[str, tuple[str, ...]], str | None] = {}

    def name_for(self, schema: str | None, agent_id: str, tags: tuple[str, ...]) -> str:
        """The schema name an entry is compressed (and indexed) with."""
        if schema:
            return schema
        key = (agent_id, tags)
        if key not in self._agents:
            self._agents[key] = self._store.schema_for(agent_id, tags)
        return self._agents[key] or GENERIC

    def get(self, name: str, version: int | None = None) -> FactSchema | None:
        """The registered schema (latest without ``version``; ``NAME@VERSION`` names one),
        else the built-in one."""
        if version is None and "@" in name:
            try:
                name, version = split_version(name)
            except InputError:
                return None
        key = (name, version)
        if key not in self._named:
            self._named[key] = self._load(name, version)
        return self._named[key]

    def for_indexing(self, schema: str | None, agent_id: str, tags: tuple[str, ...]) -> FactSchema:
        """The schema an entry's facts are indexed with (``generic`` for an unknown name)."""
        found = self.get(self.name_for(schema, agent_id, tags))
        return found if found is not None else builtin_schema(GENERIC)

    def _load(self, name: str, version: int | None) -> FactSchema | None:
        try:
            stored = self._store.get_schema_definition(name, version)
        except SchemaNotRegistered:
            if name != GENERIC and name not in builtin_schema_names():
                return None
            schema = builtin_schema(name)
            return schema if version in (None, schema.version) else None
        key = (name, stored.hash, stored.source_text)
        parsed = _PARSED.get(key)
        if parsed is None:
            parsed = _parse(name, stored)
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.pop(next(iter(_PARSED)))
            _PARSED[key] = parsed
        return parsed


_PARSED: dict[tuple[str, str, str | None], FactSchema] = {}
"""Registered schema versions parsed in this process, keyed by their content: a schema is
immutable, so a new registration is a new key, never a stale hit. Resolvers are made per call
(one per demoted entry), and parsing the YAML is what each would repeat."""

_PARSED_MAX = 256


def _parse(name: str, stored: StoredSchema) -> FactSchema:
    if stored.source_text:
        schema = schema_from_yaml(stored.source_text, f"<store>/{name}.yaml")
        if schema.hash == stored.hash:
            return schema
    return schema_from_definition(stored.definition, f"<store>/{name}")
