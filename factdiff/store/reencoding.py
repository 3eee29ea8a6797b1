"""Re-encoding warm entries already stored, away from zstd dictionaries that must go.

``ReencodingMixin`` is part of every ``MemoryStore``. Each
re-encoded entry gets new warm columns (narrative, record, meta) and a new archive made with
one dictionary (or none), decoded again and compared before it is written; a batch of
entries is one transaction, so every operation here is resumable at any point.

* ``retire_dictionaries_trained_on`` stops using the dictionaries trained on one entry (an
  erasure or a correction: they hold fragments of its text), re-encoding their users with a
  dictionary trained without it; ``retire_agent_dictionaries`` stops using every dictionary
  of an agent at once (before all its entries are erased).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from factdiff.inputs.times import clamp_time
from factdiff.store import codec, compact
from factdiff.store.compact_storage import REENCODE_BATCH
from factdiff.store.dictionaries import unpack_ids
from factdiff.store.model import EntryNotFound, IntegrityError

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

Dictionary = tuple[int | None, codec.CodecDictionary | None]
"""A dictionary's id and zstd dictionary, or ``(None, None)`` for plain frames."""
Reencoded = tuple[dict[str, Any], dict[str, Any]]
"""The new warm and cold columns of one entry."""


def _store(mixin: ReencodingMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class ReencodingMixin:
    """Re-encoding of stored warm entries (see the module docstring)."""

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
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        row = store._row("select_entry", id=entry_id)
        if row is None:
            raise EntryNotFound(entry_id)
        agent_id = str(row["agent_id"])
        tainted = [
            int(dict_id)
            for dict_id, _version, trained_on in store._rows(
                store._sql("select_agent_dictionaries"), {"agent": agent_id}
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
        store = _store(self)
        dict_ids = [
            int(row["id"])
            for row in store._rows(store._sql("select_agent_dictionaries"), {"agent": agent_id})
        ]
        self._retire(dict_ids, (None, None), codec.to_micros(now, "now"), batch)
        return len(dict_ids)

    def _retire(
        self, dict_ids: list[int], replacement: Dictionary, now_us: int, batch: int
    ) -> None:
        """Re-encode every user of ``dict_ids`` with ``replacement``, then delete them (a
        user that a concurrent demotion added during a sweep is caught by the next one)."""
        store = _store(self)
        sql = store._sql("dictionary_users_page")
        for dict_id in dict_ids:
            while True:
                after = ""
                while True:
                    params = {"id": dict_id, "after": after, "limit": batch}
                    users = [str(r["entry_id"]) for r in store._rows(sql, params)]
                    if not users:
                        break
                    items = [self._reencoded(u, replacement) for u in users]
                    store._write(partial(self._write_reencoded, items))
                    after = users[-1]

                def drop(target: int = dict_id) -> bool:
                    if int(store._one("count_dictionary_users", id=target)) != 0:
                        return False
                    store._exec("delete_dictionary", id=target)
                    return True

                if store._write(drop):
                    break
            store._dictionaries.forget(dict_id)

    def _clean_dictionary(
        self, agent_id: str, now_us: int, entry_id: str, tainted: list[int]
    ) -> Dictionary:
        """The agent's latest dictionary if untainted, else one trained now without
        ``entry_id`` (``(None, None)`` when too few entries remain)."""
        store = _store(self)
        latest = store._one("select_latest_dictionary", agent=agent_id)
        if latest is not None and int(latest) not in tainted:
            return int(latest), store._dictionaries.get(int(latest))
        trained = store._train_dictionary(agent_id, now_us, (entry_id,))
        if trained is None or trained in tainted:
            return None, None
        return trained, store._dictionaries.get(trained)

    # -- one entry -------------------------------------------------------------------------

    def _reencoded(self, entry_id: str, dictionary: Dictionary) -> Reencoded | None:
        """New warm and cold columns for ``entry_id`` made with ``dictionary``, or ``None`` if
        it is no longer warm."""
        store = _store(self)
        entry = store._load(entry_id)
        if entry is None or entry.warm is None:
            return None
        cold = store._row("select_cold", id=entry_id)
        if cold is None:
            raise IntegrityError(entry_id, "warm entry has no cold archive")
        data = store._cold_bytes(entry_id, cold)
        source = codec.decode_content(data)
        warm = store._warm_params(
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
        store = _store(self)
        done = 0
        for item in batch:
            if item is None:
                continue
            warm, cold = item
            if store._count("update_cold_encoding", **cold) != 1:
                continue  # restored meanwhile
            store._exec("update_warm_encoding", **warm)
            done += 1
        return done
