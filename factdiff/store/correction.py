"""Correction: replace an entry's source with a corrected text, keeping its history.

``Corrections.correct(entry_id, text, now=..., reason=...)`` (``MemoryStore.correct``) runs
in one write transaction: a warm entry is first restored to hot from its verified cold
archive (warm row and archive removed, as ``restore`` does, its last use kept), then the hot
source becomes ``text``, the content hash and size follow, the search indexes are updated
(text and facts), and a ``corrected`` event records the previous content hash, the new one
and the reason. The entry becomes due for compression again: active (out of review), no
scheduled retry, no error streak, no lease (a worker still holding one cannot apply an
outcome computed on the old text). Its attempts and events stay as they were: they are the
history of the previous text. The zstd dictionaries trained on the entry (they hold
fragments of the previous text) are retired in the same transaction, as an erasure retires
them (``retire_dictionaries_trained_on``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from factdiff.errors import InputError
from factdiff.inputs.times import clamp_time
from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.cold_tier import ColdTier
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.database import Database
from factdiff.store.erasure import Erasure
from factdiff.store.event_log import EventLog
from factdiff.store.indexing import index_text
from factdiff.store.model import EntryErased, EntryNotFound, EventType, NewEvent, Tier
from factdiff.store.reencoding import Reencoding
from factdiff.store.search_index import SearchIndex


@dataclass(frozen=True)
class Correction:
    """The result of ``correct``."""

    entry_id: str
    previous_content_hash: str
    content_hash: str
    size_bytes: int
    restored: bool
    """The entry was warm and was restored to hot first."""
    reason: str

    def to_json(self) -> dict[str, Any]:
        """``{"id", "previous_content_hash", "content_hash", "size_bytes", "restored",
        "reason", "tier"}``."""
        return {
            "id": self.entry_id,
            "previous_content_hash": self.previous_content_hash,
            "content_hash": self.content_hash,
            "size_bytes": self.size_bytes,
            "restored": self.restored,
            "reason": self.reason,
            "tier": Tier.HOT.value,
        }


class Corrections:
    """Corrections of one store's entries (see the module docstring): over ``db``, with the
    store's size limit, ``erasure`` (a gone entry's tombstone), ``cold_tier`` (a warm
    entry's restore), ``search_index``, ``events``, ``reencoding`` (dictionaries trained on
    the previous text) and ``compact`` (its loaded dictionaries)."""

    def __init__(
        self,
        db: Database,
        max_entry_bytes: int,
        *,
        erasure: Erasure,
        cold_tier: ColdTier,
        search_index: SearchIndex,
        events: EventLog,
        reencoding: Reencoding,
        compact: CompactStorage,
    ) -> None:
        self._db = db
        self._max_entry_bytes = max_entry_bytes
        self._erasure = erasure
        self._cold_tier = cold_tier
        self._search_index = search_index
        self._events = events
        self._reencoding = reencoding
        self._compact = compact

    def correct(
        self, entry_id: str, content: str, *, now: datetime, reason: str = ""
    ) -> Correction:
        """Replace the source of ``entry_id`` with ``content`` (a warm entry is restored
        first), in one transaction (see ``factdiff.store.correction``).

        ``InputError`` for an empty or whitespace-only text, a text over the store's size
        limit, or a text equal to the current source; ``EntryErased`` / ``EntryNotFound`` for
        an entry that is gone or unknown.
        """
        if not content.strip():
            raise InputError("the corrected text is empty or whitespace: give the full new text")
        data = codec.encode_content(content, self._max_entry_bytes)
        new_hash = codec.content_hash(data)
        why = codec.check_text(reason, "reason")
        now_us = codec.to_micros(now, "now")
        db = self._db

        def work() -> Correction:
            row = db.row("select_entry", id=entry_id)
            if row is None:
                stone = self._erasure.tombstone(entry_id)
                raise EntryNotFound(entry_id) if stone is None else EntryErased(stone)
            entry = rowmap.entry(row)
            if entry.content_hash == new_hash:
                raise InputError(
                    f"entry {entry_id} already holds exactly this text: nothing to correct"
                )
            restored = entry.tier is Tier.WARM
            if restored:
                old = self._cold_tier.rehydrate(
                    entry, codec.to_micros(clamp_time(entry.last_used_at), "last_used_at")
                )
            else:
                old = bytes(db.one("select_hot", id=entry_id))
            db.exec("correct_hot", id=entry_id, content=data)
            db.exec("correct_entry", id=entry_id, content_hash=new_hash, size_bytes=len(data))
            doc = db.one("select_search_doc", entry_id=entry_id)
            if doc is not None:
                old_text = index_text(codec.decode_content(old))
                if db.sql("erase_search_text"):
                    db.exec("erase_search_text", doc=int(doc), text=old_text)
                db.exec("correct_search_body", doc=int(doc), text=index_text(content))
            self._search_index.reindex(self._search_index.hot_doc(entry, content))
            payload = {
                "previous_content_hash": entry.content_hash,
                "content_hash": new_hash,
                "size_bytes": len(data),
                "restored": restored,
                "reason": why,
            }
            event = NewEvent(EventType.CORRECTED, payload)
            self._events.append([event], entry_id, entry.agent_id, now_us)
            with db.joined_writes():
                self._reencoding.retire_dictionaries_trained_on(entry_id, now=now)
            return Correction(entry_id, entry.content_hash, new_hash, len(data), restored, why)

        try:
            return db.write(work)
        except BaseException:
            # dictionaries loaded or retired inside a rolled-back correction may not exist as
            # cached
            self._compact.dictionaries.clear()
            raise
