"""Schema migrations: the version check at opening and ``migrate``.

A new store gets the dialect's baseline (``migrations/<dialect>/0001_baseline.sql``), then
every migration numbered after it; each runs in its own write transaction, serialised across
processes. After the scripts, ``migrate`` fills the search indexes of entries that lack them
(resumable: ``build_index``, which the store passes in). A store made before the baseline
(its migration 1 has another name: an earlier factdiff 0.1 format) is refused with
``StoreFormatRetired``: nothing reads or upgrades it.

``Migrations`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from factdiff.errors import MigrationRequired, StoreError, StoreFormatRetired
from factdiff.store.database import Database
from factdiff.store.dialect import Migration


class Migrations:
    """Schema migrations of one store (see the module docstring)."""

    def __init__(self, db: Database, build_index: Callable[[], object]) -> None:
        self._db = db
        self._build_index = build_index

    @property
    def _location(self) -> str:
        return self._db.backend.location

    def check_version(self, create: bool) -> None:
        """Migrate an empty store (with ``create``); else ``StoreFormatRetired``,
        ``MigrationRequired`` or ``StoreError`` unless its schema is this factdiff's."""
        current, expected = self.schema_version(), self._db.dialect.version
        if current == 0 and create and self._object_count() == 0:
            self.migrate()
            return
        self._check_baseline()
        if current < expected:
            raise MigrationRequired(
                f"store {self._location} is at schema version {current}, this factdiff needs "
                f"{expected}: run `factdiff migrate`"
            )
        if current > expected:
            raise StoreError(
                f"store {self._location} is at schema version {current}, newer than this "
                f"factdiff ({expected}): upgrade factdiff"
            )

    def _check_baseline(self) -> None:
        """``StoreFormatRetired`` if the store's migration 1 is not this dialect's baseline."""
        db = self._db
        if not db.one("has_migrations_table"):
            return
        first = str(db.one("baseline_name"))
        if first and first != db.dialect.baseline:
            raise StoreFormatRetired(
                f"store {self._location} was made by an earlier factdiff 0.1 format, which "
                "this factdiff does not read: re-create it (a new store, then `factdiff add` "
                "its sources again)"
            )

    def schema_version(self) -> int:
        """The version of the last migration applied to the store (0 for an empty one)."""
        db = self._db
        if not db.one("has_migrations_table"):
            return 0
        return int(db.one("schema_version"))

    def _object_count(self) -> int:
        return int(self._db.one("user_object_count"))

    def migrate(self) -> int:
        """Apply every pending migration, each in its own transaction; returns how many.

        Then index the entries the search indexes lack (resumable, so an interrupted
        ``migrate`` is finished by running it again)."""
        self._check_baseline()
        applied = 0
        for migration in self._db.dialect.migrations:
            if self._db.write(partial(self._apply_migration, migration)):
                applied += 1
        self._build_index()
        return applied

    def _apply_migration(self, migration: Migration) -> bool:
        db = self._db
        db.exec("lock_migrations").fetchall()  # serialise concurrent migrations
        current = self.schema_version()
        if current == 0 and self._object_count() > 0:
            raise StoreError(f"{self._location} is not a factdiff store: choose another one")
        if current > db.dialect.version:
            raise StoreError(
                f"store {self._location} is at schema version {current}, newer than this "
                f"factdiff ({db.dialect.version}): upgrade factdiff"
            )
        if migration.version <= current:
            return False
        db.run_script(migration.sql)
        db.exec("record_migration", version=migration.version, name=migration.name)
        return True
