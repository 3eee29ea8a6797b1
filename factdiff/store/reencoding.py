"""Re-encoding warm entries already stored, away from zstd dictionaries that must go.

``Reencoding`` is a repository over the store's ``Database`` that rewrites what the compact
storage (``factdiff.store.compact_storage``) wrote. Each re-encoded entry gets new warm
columns (narrative, record, meta) and a new archive made with one dictionary (or none),
decoded again and compared before it is written; a batch of entries is one transaction, so
every operation here is resumable at any point.

* ``retire_dictionaries_trained_on`` stops using the dictionaries trained on one entry (an
  erasure or a correction: they hold fragments of its text), re-encoding their users with a
  dictionary trained without it; ``retire_agent_dictionaries`` stops using every dictionary
  of an agent at once (before all its entries are erased).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from factdiff.inputs.times import clamp_time
from factdiff.store import codec, compact
from factdiff.store.compact_storage import REENCODE_BATCH, CompactStorage
from factdiff.store.database import Database
from factdiff.store.dictionaries import unpack_ids
from factdiff.store.model import Entry, EntryNotFound, IntegrityError
from factdiff.store.warm_columns import Dictionary

__all__ = ["REENCODE_BATCH", "Reencoding"]

Reencoded = tuple[dict[str, Any], dict[str, Any]]
"""The new warm and cold columns of one entry."""


class Reencoding:
    """Re-encoding of one store's warm entries (see the module docstring): over ``db``,
    with the ``compact`` storage that encodes them and ``load`` reading an entry."""

    def __init__(
        self,
        db: Database,
        compact: CompactStorage,
        load: Callable[[str], Entry | None],
    ) -> None:
        self._db = db
        self._compact = compact
        self._load = load

    # -- dictionary retirement -------------------------------------------------------------

    def retire_dictionaries_trained_on(
        self, entry_id: str, *, now: datetime, batch: int = REENCODE_BATCH
    ) -> int:
        """Stop using every zstd dictionary trained on ``entry_id`` (they hold fragments of
        its text): re-encode each archive and warm record compressed with one of them with a
        newer dictionary of the agent trained without the entry (or as a plain zstd frame
        when too few entries remain), ``batch`` entries per transaction, then delete the
        dictionary rows. Resumable: a run interrupted anywhere is finished by the next one.
        Returns how many dictionaries were deleted."""
        now_us = codec.to_micros(now, "now")
        row = self._db.row("select_entry", id=entry_id)
        if row is None:
            raise EntryNotFound(entry_id)
        agent_id = str(row["agent_id"])
        tainted = [
            int(dict_id)
            for dict_id, _version, trained_on in self._db.rows(
                self._db.sql("select_agent_dictionaries"), {"agent": agent_id}
            )
            if entry_id in unpack_ids(bytes(trained_on))
        ]
        if not tainted:
            return 0
        replacement = self._clean_dictionary(agent_id, now_us, entry_id, tainted)
        self._retire(tainted, replacement, now_us, batch)
        return len(tainted)

    def retire_agent_dictionaries(
        self, agent_id: str, *, now: datetime, batch: int = REENCODE_BATCH
    ) -> int:
        """Stop using every zstd dictionary of ``agent_id`` at once (before all its entries are
        erased: each is trained on some of them): its archives and warm records become plain
        zstd frames, ``batch`` entries per transaction, then the dictionary rows are deleted.
        Erasing the entries one by one after this retrains nothing (erasing them first would
        retire and retrain a dictionary per erased entry, re-encoding the agent each time).
        Resumable; returns how many dictionaries were deleted."""
        dict_ids = [
            int(row["id"])
            for row in self._db.rows(self._db.sql("select_agent_dictionaries"), {"agent": agent_id})
        ]
        self._retire(dict_ids, (None, None), codec.to_micros(now, "now"), batch)
        return len(dict_ids)

    def _retire(
        self, dict_ids: list[int], replacement: Dictionary, now_us: int, batch: int
    ) -> None:
        """Re-encode every user of ``dict_ids`` with ``replacement``, then delete them (a
        user that a concurrent demotion added during a sweep is caught by the next one)."""
        sql = self._db.sql("dictionary_users_page")
        for dict_id in dict_ids:
            while True:
                after = ""
                while True:
                    params = {"id": dict_id, "after": after, "limit": batch}
                    users = [str(r["entry_id"]) for r in self._db.rows(sql, params)]
                    if not users:
                        break
                    items = [self._reencoded(u, replacement) for u in users]
                    self._db.write(partial(self._write_reencoded, items))
                    after = users[-1]

                def drop(target: int = dict_id) -> bool:
                    if int(self._db.one("count_dictionary_users", id=target)) != 0:
                        return False
                    self._db.exec("delete_dictionary", id=target)
                    return True

                if self._db.write(drop):
                    break
            self._compact.dictionaries.forget(dict_id)

    def _clean_dictionary(
        self, agent_id: str, now_us: int, entry_id: str, tainted: list[int]
    ) -> Dictionary:
        """The agent's latest dictionary if untainted, else one trained now without
        ``entry_id`` (``(None, None)`` when too few entries remain)."""
        latest = self._db.one("select_latest_dictionary", agent=agent_id)
        if latest is not None and int(latest) not in tainted:
            return int(latest), self._compact.dictionaries.get(int(latest))
        trained = self._compact.train_dictionary(agent_id, now_us, (entry_id,))
        if trained is None or trained in tainted:
            return None, None
        return trained, self._compact.dictionaries.get(trained)

    # -- one entry -------------------------------------------------------------------------

    def _reencoded(self, entry_id: str, dictionary: Dictionary) -> Reencoded | None:
        """New warm and cold columns for ``entry_id`` made with ``dictionary``, or ``None`` if
        it is no longer warm."""
        entry = self._load(entry_id)
        if entry is None or entry.warm is None:
            return None
        cold = self._db.row("select_cold", id=entry_id)
        if cold is None:
            raise IntegrityError(entry_id, "warm entry has no cold archive")
        data = self._compact.cold_bytes(entry_id, cold)
        source = codec.decode_content(data)
        warm = self._compact.warm_params(
            entry_id,
            source,
            entry.warm.narrative,
            entry.warm.record,
            entry.warm.meta,
            entry.content_hash,
            codec.to_micros(clamp_time(entry.warm.compressed_at)),
            dictionary,
        )
        packed = codec.archive(data, dictionary[1])  # checked to round-trip
        check = compact.unpack_record(codec.zstd_decompress(warm["record"], dictionary[1]), source)
        if check != entry.warm.record:  # pragma: no cover - pack_record checks the round trip
            raise IntegrityError(entry_id, "re-encoded fact record does not round-trip")
        cold_params = {
            "id": entry_id,
            "codec": codec.COLD_CODEC,
            "data": packed,
            "dictionary_id": dictionary[0],
        }
        return {**warm, "id": entry_id}, cold_params

    def _write_reencoded(self, batch: list[Reencoded | None]) -> int:
        """Inside a write: the re-encoded entries still warm (returns how many)."""
        done = 0
        for item in batch:
            if item is None:
                continue
            warm, cold = item
            if self._db.count("update_cold_encoding", **cold) != 1:
                continue  # restored meanwhile
            self._db.exec("update_warm_encoding", **warm)
            done += 1
        return done
