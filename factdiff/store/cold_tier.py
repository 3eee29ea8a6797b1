"""The cold tier: archived sources read back (verified against their hash on every read) and
warm entries restored to hot.

``ColdTier`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods. The archives' encoding is the compact storage's (``cold_bytes``,
``keep_accepted_summary``), and a rehydrated entry is indexed again by the search index
(``reindex``); the store passes these in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.database import Database, Row
from factdiff.store.event_log import AppendEvents
from factdiff.store.model import (
    Entry,
    EntryNotFound,
    EventType,
    IntegrityError,
    NewEvent,
    Tier,
    WrongTier,
)


class ColdTier:
    """The cold tier of one store (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        append_events: AppendEvents,
        *,
        cold_bytes: Callable[[str, Row], bytes],
        keep_accepted_summary: Callable[[str], None],
        reindex: Callable[[Entry, bytes], None],
    ) -> None:
        self._db = db
        self._append_events = append_events
        self._cold_bytes = cold_bytes
        self._keep_accepted_summary = keep_accepted_summary
        self._reindex = reindex

    def read_cold(self, entry_id: str) -> str:
        """The archived source of a warm entry, checked against its hash on every read."""
        db = self._db
        with db.read():
            row = db.row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            cold = db.row("select_cold", id=entry_id)
        if cold is None:
            raise WrongTier(f"entry {entry_id} is {row['tier']}: it has no cold archive")
        return codec.decode_content(self._cold_bytes(entry_id, cold))

    def restore(self, entry_id: str, now: datetime) -> None:
        """Bring a warm entry back to hot from its verified cold archive, in one transaction.

        The warm row and the archive are removed, ``last_used_at`` becomes ``now`` and a
        ``restored`` event is appended. ``WrongTier`` if the entry is already hot.
        """
        now_us = codec.to_micros(now, "now")

        def work() -> None:
            row = self._db.row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            entry = rowmap.entry(row)
            if entry.tier is not Tier.WARM:
                raise WrongTier(f"entry {entry_id} is {entry.tier}: nothing to restore")
            data = self.rehydrate(entry, now_us)
            payload = {"content_hash": entry.content_hash, "size_bytes": len(data)}
            event = NewEvent(EventType.RESTORED, payload)
            self._append_events([event], entry_id, entry.agent_id, now_us)

        self._db.write(work)

    def rehydrate(self, entry: Entry, now_us: int, *, touch: bool = True) -> bytes:
        """Inside a write: the warm ``entry`` becomes hot again from its verified archive
        (warm row and archive removed, search index updated); returns the source bytes.
        Restore, promotion and re-evaluation all go through here. With ``touch`` its
        ``last_used_at`` becomes now (a use); without, it keeps its dormancy (due at once
        for recompression)."""
        db = self._db
        cold = db.row("select_cold", id=entry.id)
        if cold is None:
            raise IntegrityError(entry.id, "warm entry has no cold archive")
        data = self._cold_bytes(entry.id, cold)
        self._keep_accepted_summary(entry.id)
        db.exec("insert_hot", id=entry.id, content=data)
        db.exec("delete_warm", id=entry.id)
        if touch:
            db.exec("set_restored", id=entry.id, now=now_us)
        else:
            db.exec("set_rehydrated_due", id=entry.id)
        self._reindex(entry, data)
        return data
