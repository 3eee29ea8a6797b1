"""``MemoryStore.verify``: every stored hash, tier and encoding re-checked, one line per
problem."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from factdiff.store import codec, search_index
from factdiff.store import rows as rowmap
from factdiff.store.model import IntegrityError

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

Row = rowmap.Row


def _store(mixin: IntegrityMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class IntegrityMixin:
    """``MemoryStore.verify`` (see the module docstring)."""

    def verify(self) -> list[str]:
        """Re-derive every hot and cold content hash, every warm narrative and fact record
        hash (decoding the compact encodings, zstd dictionaries checked against their hash)
        and every attestation, check that every entry is in exactly one tier and in the
        search indexes and that packed attempts and events decode; returns one line per
        problem (empty when the store is sound)."""
        store = _store(self)
        problems: list[str] = []
        for row in store._pages("hot_page", 32):
            if codec.content_hash(bytes(row["content"])) != row["content_hash"]:
                problems.append(f"entry {row['entry_id']}: hot content does not match its hash")
        for row in store._pages("cold_page", 32):
            try:
                store._cold_bytes(str(row["entry_id"]), row)
            except IntegrityError as exc:
                problems.append(str(exc))
        for row in store._rows(store._sql("tier_violations"), {}):
            problems.append(
                f"entry {row['id']}: tier {row['tier']} but hot={bool(row['hot'])} "
                f"warm={bool(row['warm'])} cold={bool(row['cold'])}"
            )
        problems.extend(search_index.verify_retrieval(store))
        problems.extend(store.attestations.problems())
        problems.extend(search_index.unindexed_problems(store))
        problems.extend(store._packed_problems())
        return problems

    def _pages(self, key: str, size: int) -> Iterator[Row]:
        """The rows of a page statement keyed by ``entry_id``, ``size`` at a time."""
        store = _store(self)
        sql, after = store._sql(key), ""
        while True:
            rows = store._rows(sql, {"after": after, "limit": size})
            for row in rows:
                after = str(row["entry_id"])
                yield row
            if len(rows) < size:
                return
