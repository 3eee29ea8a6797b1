"""Schema migrations of ``MemoryStore``: the version check at opening and ``migrate``.

Each migration script of the dialect (``migrations/<dialect>/NNNN_name.sql``) runs in its own
write transaction, serialised across processes; after the scripts, ``migrate`` fills the
search indexes and re-encodes warm rows stored before the compact tiers, both resumable.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from factdiff.errors import MigrationRequired, StoreError
from factdiff.store.dialect import Migration

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

SEARCH_INDEX_VERSION = 6
"""The schema version that added the search indexes (``migrate`` fills them for old entries)."""
COMPACT_VERSION = 9
"""The schema version of the compact tiers (``migrate`` re-encodes older warm rows)."""


def _store(mixin: MigrationMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class MigrationMixin:
    """Schema migrations of ``MemoryStore`` (see the module docstring)."""

    def _check_version(self, create: bool) -> None:
        store = _store(self)
        current, expected = store.schema_version(), store._dialect.version
        if current == 0 and create and store._object_count() == 0:
            store.migrate()
        elif current < expected:
            raise MigrationRequired(
                f"store {store.location} is at schema version {current}, this factdiff needs "
                f"{expected}: run `factdiff migrate`"
            )
        elif current > expected:
            raise StoreError(
                f"store {store.location} is at schema version {current}, newer than this "
                f"factdiff ({expected}): upgrade factdiff"
            )

    def schema_version(self) -> int:
        """The version of the last migration applied to the store (0 for an empty one)."""
        store = _store(self)
        if not store._one("has_migrations_table"):
            return 0
        return int(store._one("schema_version"))

    def _object_count(self) -> int:
        store = _store(self)
        return int(store._one("user_object_count"))

    def migrate(self) -> int:
        """Apply every pending migration, each in its own transaction; returns how many.

        Then fill the search indexes and re-encode warm entries stored before the compact
        tiers (``recode``): both resumable, so an interrupted ``migrate`` is finished by
        running it again."""
        store = _store(self)
        applied = 0
        for migration in store._dialect.migrations:
            if store._write(partial(store._apply_migration, migration)):
                applied += 1
        if store.schema_version() >= SEARCH_INDEX_VERSION:
            store.build_search_index()
        if store.schema_version() >= COMPACT_VERSION:
            store.recode(now=store.db_now())
        return applied

    def _apply_migration(self, migration: Migration) -> bool:
        store = _store(self)
        store._lock_migrations()
        current = store.schema_version()
        if current == 0 and store._object_count() > 0:
            raise StoreError(f"{store.location} is not a factdiff store: choose another one")
        if current > store._dialect.version:
            raise StoreError(
                f"store {store.location} is at schema version {current}, newer than this "
                f"factdiff ({store._dialect.version}): upgrade factdiff"
            )
        if migration.version <= current:
            return False
        store._run_script(migration.sql)
        store._exec("record_migration", version=migration.version, name=migration.name)
        return True

    def _lock_migrations(self) -> None:
        """Serialise concurrent migrations (inside the migration's transaction)."""
        store = _store(self)
        store._exec("lock_migrations").fetchall()
