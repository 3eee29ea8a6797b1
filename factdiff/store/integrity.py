"""``MemoryStore.verify``: every stored hash, tier and encoding re-checked, one line per
problem.

``Integrity`` is a repository over the store's ``Database``: it checks the hot contents, the
cold archives (decoded by ``cold_bytes``) and the tiers itself, then runs the other parts'
checks (search indexes, attestations, packed rows) in the order given; ``MemoryStore``
forwards ``verify``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from factdiff.store import codec
from factdiff.store.database import Database, Row
from factdiff.store.model import IntegrityError

Check = Callable[[], Iterable[str]]
"""A part's own check: one line per problem."""


class Integrity:
    """``MemoryStore.verify`` (see the module docstring)."""

    def __init__(
        self, db: Database, cold_bytes: Callable[[str, Row], bytes], checks: Sequence[Check]
    ) -> None:
        self._db = db
        self._cold_bytes = cold_bytes
        self._checks = tuple(checks)

    def verify(self) -> list[str]:
        """Re-derive every hot and cold content hash, every warm narrative and fact record
        hash (decoding the compact encodings, zstd dictionaries checked against their hash)
        and every attestation, check that every entry is in exactly one tier and in the
        search indexes and that packed attempts and events decode; returns one line per
        problem (empty when the store is sound)."""
        problems: list[str] = []
        for row in self._pages("hot_page", 32):
            if codec.content_hash(bytes(row["content"])) != row["content_hash"]:
                problems.append(f"entry {row['entry_id']}: hot content does not match its hash")
        for row in self._pages("cold_page", 32):
            try:
                self._cold_bytes(str(row["entry_id"]), row)
            except IntegrityError as exc:
                problems.append(str(exc))
        for row in self._db.rows(self._db.sql("tier_violations"), {}):
            problems.append(
                f"entry {row['id']}: tier {row['tier']} but hot={bool(row['hot'])} "
                f"warm={bool(row['warm'])} cold={bool(row['cold'])}"
            )
        for check in self._checks:
            problems.extend(check())
        return problems

    def _pages(self, key: str, size: int) -> Iterator[Row]:
        """The rows of a page statement keyed by ``entry_id``, ``size`` at a time."""
        sql, after = self._db.sql(key), ""
        while True:
            rows = self._db.rows(sql, {"after": after, "limit": size})
            for row in rows:
                after = str(row["entry_id"])
                yield row
            if len(rows) < size:
                return
