"""The cold tier of ``MemoryStore``: archived sources read back (verified against their
hash on every read) and warm entries restored to hot."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, cast

from factdiff.store import codec, search_index
from factdiff.store import rows as rowmap
from factdiff.store.model import (
    Entry,
    EntryNotFound,
    EventType,
    IntegrityError,
    NewEvent,
    Tier,
    WrongTier,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


def _store(mixin: ColdTierMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class ColdTierMixin:
    """The cold tier of ``MemoryStore`` (see the module docstring)."""

    def read_cold(self, entry_id: str) -> str:
        """The archived source of a warm entry, checked against its hash on every read."""
        store = _store(self)
        with store._read():
            row = store._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            cold = store._row("select_cold", id=entry_id)
        if cold is None:
            raise WrongTier(f"entry {entry_id} is {row['tier']}: it has no cold archive")
        return codec.decode_content(store._cold_bytes(entry_id, cold))

    def restore(self, entry_id: str, now: datetime) -> None:
        """Bring a warm entry back to hot from its verified cold archive, in one transaction.

        The warm row and the archive are removed, ``last_used_at`` becomes ``now`` and a
        ``restored`` event is appended. ``WrongTier`` if the entry is already hot.
        """
        store = _store(self)
        now_us = codec.to_micros(now, "now")

        def work() -> None:
            row = store._row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            entry = rowmap.entry(row)
            if entry.tier is not Tier.WARM:
                raise WrongTier(f"entry {entry_id} is {entry.tier}: nothing to restore")
            data = store._rehydrate(entry, now_us)
            payload = {"content_hash": entry.content_hash, "size_bytes": len(data)}
            event = NewEvent(EventType.RESTORED, payload)
            store._append_events([event], entry_id, entry.agent_id, now_us)

        store._write(work)

    def _rehydrate(self, entry: Entry, now_us: int, *, touch: bool = True) -> bytes:
        """Inside a write: the warm ``entry`` becomes hot again from its verified archive
        (warm row and archive removed, search index updated); returns the source bytes.
        Restore, promotion and re-evaluation all go through here. With ``touch`` its
        ``last_used_at`` becomes now (a use); without, it keeps its dormancy (due at once
        for recompression)."""
        store = _store(self)
        cold = store._row("select_cold", id=entry.id)
        if cold is None:
            raise IntegrityError(entry.id, "warm entry has no cold archive")
        data = store._cold_bytes(entry.id, cold)
        store._keep_accepted_summary(entry.id)
        store._exec("insert_hot", id=entry.id, content=data)
        store._exec("delete_warm", id=entry.id)
        if touch:
            store._exec("set_restored", id=entry.id, now=now_us)
        else:
            store._exec("set_rehydrated_due", id=entry.id)
        search_index.index_rehydrated(store, entry, data)
        return data
