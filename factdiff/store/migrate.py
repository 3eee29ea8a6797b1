"""Schema migrations of ``MemoryStore``: the version check at opening and ``migrate``.

A new store gets the dialect's baseline (``migrations/<dialect>/0001_baseline.sql``), then
every migration numbered after it; each runs in its own write transaction, serialised across
processes. After the scripts, ``migrate`` fills the search indexes of entries that lack them
(resumable). A store made before the baseline (its migration 1 has another name: an earlier
factdiff 0.1 format) is refused with ``StoreFormatRetired``: nothing reads or upgrades it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from factdiff.errors import MigrationRequired, StoreError, StoreFormatRetired
from factdiff.store.dialect import Migration

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


def _store(mixin: MigrationMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class MigrationMixin:
    """Schema migrations of ``MemoryStore`` (see the module docstring)."""

    def _check_version(self, create: bool) -> None:
        store = _store(self)
        current, expected = store.schema_version(), store._dialect.version
        if current == 0 and create and store._object_count() == 0:
            store.migrate()
            return
        store._check_baseline()
        if current < expected:
            raise MigrationRequired(
                f"store {store.location} is at schema version {current}, this factdiff needs "
                f"{expected}: run `factdiff migrate`"
            )
        if current > expected:
            raise StoreError(
                f"store {store.location} is at schema version {current}, newer than this "
                f"factdiff ({expected}): upgrade factdiff"
            )

    def _check_baseline(self) -> None:
        """``StoreFormatRetired`` if the store's migration 1 is not this dialect's baseline."""
        store = _store(self)
        if not store._one("has_migrations_table"):
            return
        first = str(store._one("baseline_name"))
        if first and first != store._dialect.baseline:
            raise StoreFormatRetired(
                f"store {store.location} was made by an earlier factdiff 0.1 format, which "
                "this factdiff does not read: re-create it (a new store, then `factdiff add` "
                "its sources again)"
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

        Then index the entries the search indexes lack (resumable, so an interrupted
        ``migrate`` is finished by running it again)."""
        store = _store(self)
        store._check_baseline()
        applied = 0
        for migration in store._dialect.migrations:
            if store._write(partial(store._apply_migration, migration)):
                applied += 1
        store.build_search_index()
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
