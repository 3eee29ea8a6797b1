"""The store's compact tiers: warm rows in the compact encoding, zstd cold archives with
per-agent dictionaries, attempt retention, and sizes (re-encoding stored entries when a
dictionary retires is ``factdiff.store.reencoding``).

``CompactStorage`` is a repository over the store's ``Database``; it holds the caches of
loaded dictionaries and identities, dropped when a write transaction that may have stored
some rolls back. A warm row (encoding 1, the only
one) holds its narrative as a zstd frame and its fact record as a zstd frame of
``compact.pack_record`` (both with the agent's dictionary), and its meta split by
``compact_meta.split_meta``; reading it back needs the entry's cold source (the surface
texts of its facts), so every statement that reads a warm row also reads the archive
(``WARM_COLUMNS``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict

from factdiff.store import codec, compact, compact_meta
from factdiff.store import rows as rowmap
from factdiff.store.database import Database
from factdiff.store.dictionaries import (
    TRAIN_SAMPLES,
    DictionaryCache,
    dictionary_hash,
    pack_ids,
    stored,
    train,
)
from factdiff.store.indexing import unpack_json as unpack_hot
from factdiff.store.model import (
    Entry,
    IntegrityError,
    WarmMeta,
    WarmView,
)
from factdiff.store.warm_columns import (
    Dictionary,
    encode_meta,
    frame_params,
    narrative_frame,
    record_column,
    record_digest,
)

WARM_COLUMNS = 12
"""Columns of a warm row in entry reads: narrative, record, meta, attempt_no,
compressed_at, encoding, dictionary_id, identity_ref, facts_digest, then the archive's
codec, data and dictionary_id."""
PROFILE = "profile"
"""The ``store_identities`` kind of a warm row's identities (one canonical JSON object)."""
REENCODE_BATCH = 64
"""Warm entries rewritten per transaction (re-encoding, attempt pruning)."""


class StorageSizes(TypedDict):
    """Bytes per tier and the ratios to the warm entries' sources (``storage``)."""

    hot_content: int
    warm_narratives: int
    warm_records: int
    warm_meta: int
    cold_archives: int
    dictionaries: int
    identities: int
    warm_source_bytes: int
    warm_ratio: float | None
    cold_ratio: float | None
    retrieval_index: int


class CompactStorage:
    """Compact warm and cold tiers of one store (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.dictionaries = DictionaryCache(db)
        """The dictionaries loaded so far, by id."""
        self._identity_ids: dict[tuple[str, str], int] = {}
        self._identity_values: dict[int, str] = {}
        db.on_rollback.append(self.forget_written_ids)

    def forget_written_ids(self) -> None:
        """Drop the cached dictionaries and identities (a write that may have stored some
        was rolled back after its savepoint was released: their ids may not exist)."""
        self.dictionaries.clear()
        self._identity_ids.clear()
        self._identity_values.clear()

    # -- reading ---------------------------------------------------------------------------

    def cold_bytes(self, entry_id: str, cold: rowmap.Row) -> bytes:
        """The verified source bytes of a ``select_cold`` row (codec, data, dictionary_id,
        content_hash: the entry's)."""
        return self.source_bytes(
            entry_id, cold["codec"], cold["data"], cold["dictionary_id"], str(cold["content_hash"])
        )

    def source_bytes(
        self,
        entry_id: str,
        source_codec: str | None,
        source: bytes | None,
        dictionary_id: int | None,
        entry_hash: str,
    ) -> bytes:
        """The verified source bytes of a warm row's archive columns."""
        dictionary = self.dictionaries.get(dictionary_id)
        return rowmap.checked_cold(entry_id, source_codec, source, entry_hash, dictionary)

    def warm_view(self, entry: Entry, cols: rowmap.Row) -> WarmView:
        """The warm view of ``entry`` from its ``WARM_COLUMNS`` columns."""
        narrative, record, meta, attempt_no, compressed_at, encoding = cols[:6]
        if int(encoding) != compact.RECORD_ENCODING:
            raise IntegrityError(entry.id, f"warm row has unknown encoding {encoding}")
        source_codec, source_data, source_dictionary = cols[9:12]
        source = codec.decode_content(
            self.source_bytes(
                entry.id, source_codec, source_data, source_dictionary, entry.content_hash
            )
        )
        try:
            dictionary = self.dictionaries.get(cols[6])
            narrative_text = unpack_narrative(narrative, dictionary)
            packed = codec.zstd_decompress(record, dictionary)
            data = compact.unpack_record(packed, source)
            identities = {} if cols[7] is None else self._profile(int(cols[7]))
            digest = None if cols[8] is None else bytes(cols[8])
            split = compact_meta.SplitMeta(identities, digest, bytes(meta))
            moment = codec.from_micros(int(compressed_at)).isoformat()
            meta_json = compact_meta.join_meta(
                split, entry.content_hash, moment, record_digest(data)
            )
            warm_meta = WarmMeta.from_json(meta_json, source)
        except ValueError as exc:
            raise IntegrityError(entry.id, f"warm row does not decode: {exc}") from None
        return WarmView(
            narrative=narrative_text,
            record=data,
            meta=warm_meta,
            attempt_no=int(attempt_no),
            compressed_at=codec.from_micros(int(compressed_at)),
        )

    def _profile(self, ref: int) -> dict[str, str]:
        """The identities (kind -> value) of a warm row's ``identity_ref``."""
        found = json.loads(self._identity(ref))
        if not isinstance(found, dict):
            raise ValueError(f"identity {ref} is not an object")
        return {str(k): str(v) for k, v in found.items()}

    def _identity(self, ref: int) -> str:
        found = self._identity_values.get(ref)
        if found is None:
            row = self._db.row("select_identity", id=ref)
            if row is None:
                raise ValueError(f"identity {ref} is missing")
            found = self._identity_values[ref] = str(row["value"])
        return found

    def attempt_narrative(self, narrative: bytes | None, dictionary_id: int | None) -> str | None:
        """The warm narrative joined to an attempt row (``None`` when it made no warm row)."""
        if narrative is None:
            return None
        return unpack_narrative(narrative, self.dictionaries.get(dictionary_id))

    def keep_accepted_summary(self, entry_id: str) -> None:
        """Inside a write that removes ``entry_id``'s warm row: the attempt that made it gets
        its summary (the narrative, stored once while warm) back in its own row."""
        row = self._db.row("select_warm_narrative", id=entry_id)
        if row is None:
            return
        attempt_no = int(row["attempt_no"])
        packed = self._db.one("select_attempt_packed", id=entry_id, attempt_no=attempt_no)
        if packed is None:
            return
        diff, summary = rowmap.unpack_attempt(packed)
        if summary is not None:
            return
        narrative = self.attempt_narrative(row["narrative"], row["dictionary_id"])
        self._db.exec(
            "update_attempt_packed",
            id=entry_id,
            attempt_no=attempt_no,
            packed=rowmap.pack_attempt(diff, narrative),
        )

    # -- writing ---------------------------------------------------------------------------

    def identity_refs(self, identities: Mapping[str, str]) -> dict[str, int]:
        """Ids of the identities (registered in their own transaction when new)."""
        missing = [(k, v) for k, v in identities.items() if (k, v) not in self._identity_ids]
        if missing:

            def work() -> dict[tuple[str, str], int]:
                found = {}
                for kind, value in missing:
                    self._db.exec("insert_identity", kind=kind, value=value)
                    found[(kind, value)] = int(
                        self._db.one("select_identity_id", kind=kind, value=value)
                    )
                return found

            for key, ref in self._db.write(work).items():
                self._identity_ids[key] = ref
                self._identity_values[ref] = key[1]
        return {kind: self._identity_ids[(kind, value)] for kind, value in identities.items()}

    def warm_params(
        self,
        entry_id: str,
        source: str,
        narrative: str,
        record: Mapping[str, Any],
        meta: WarmMeta,
        content_hash: str,
        compressed_at: int,
        dictionary: Dictionary,
    ) -> dict[str, Any]:
        """The compact columns of a warm row with its identities' reference (made before
        the transaction)."""
        dictionary_id, data = dictionary
        column = record_column(record, source, data)
        meta_columns = encode_meta(entry_id, meta, content_hash, compressed_at, column.digest)
        return {
            **frame_params(
                narrative_frame(narrative, data), column.frame, dictionary_id, meta_columns
            ),
            "identity_ref": self.profile_ref(meta_columns.profile),
        }

    def profile_ref(self, profile: str) -> int:
        """The ``store_identities`` id of a warm row's identities (registered when new)."""
        return self.identity_refs({PROFILE: profile})[PROFILE]

    def latest_dictionary(self, agent_id: str) -> tuple[int, bytes] | None:
        """The id and raw bytes of the agent's latest zstd dictionary (``None``: it has
        none yet), for encoding a warm write away from the store (``warm_columns``); the
        same bytes object each time, so that a batch of calls pickles it once."""
        found = self._db.one("select_latest_dictionary", agent=agent_id)
        if found is None:
            return None
        return int(found), self.dictionaries.stored(int(found)).raw

    def dictionary_hash(self, dictionary_id: int | None) -> bytes | None:
        """The SHA-256 of dictionary ``dictionary_id``'s bytes, as its row holds it."""
        if dictionary_id is None:
            return None
        return self.dictionaries.stored(dictionary_id).hash

    def agent_dictionary(self, agent_id: str, now_us: int) -> Dictionary:
        """The agent's latest dictionary, trained now if it has none and enough entries."""
        found = self._db.one("select_latest_dictionary", agent=agent_id)
        if found is None:
            found = self.train_dictionary(agent_id, now_us, (), first=True)
        if found is None:
            return None, None
        return int(found), self.dictionaries.get(int(found))

    def train_dictionary(
        self, agent_id: str, now_us: int, exclude: Iterable[str], *, first: bool = False
    ) -> int | None:
        """Train and store the agent's next dictionary version from its first entries (but
        ``exclude``); returns the agent's latest dictionary id, or ``None`` when there are
        too few entries. With ``first``, only if the agent still has none (a concurrent
        demotion may have stored one meanwhile: that one is used)."""
        rows = self._db.rows(
            self._db.sql("dictionary_samples"),
            {
                "agent": agent_id,
                "exclude": json.dumps(sorted(set(exclude))),
                "limit": TRAIN_SAMPLES,
            },
        )
        samples: list[bytes] = []
        ids: list[str] = []
        for entry_id, content_hash, hot, cold_codec, cold_data, cold_dict, hot_record in rows:
            if hot is not None:
                source = bytes(hot)
            elif cold_codec is not None:
                source = self.source_bytes(
                    str(entry_id), cold_codec, cold_data, cold_dict, str(content_hash)
                )
            else:  # pragma: no cover - every entry has content or an archive
                continue
            ids.append(str(entry_id))
            samples.append(source)
            if hot_record is not None:
                text = codec.decode_content(source)
                samples.append(compact.pack_record(unpack_hot(bytes(hot_record)), text))
        data = train(samples)
        if data is None:
            return None
        params = {
            "agent": agent_id,
            "hash": dictionary_hash(data),
            "data": stored(data),
            "trained_on": pack_ids(ids),
            "now": now_us,
        }

        def work() -> int | None:
            self._db.exec("insert_first_dictionary" if first else "insert_dictionary", **params)
            latest = self._db.one("select_latest_dictionary", agent=agent_id)
            return None if latest is None else int(latest)

        return self._db.write(work)

    # -- attempt retention -----------------------------------------------------------------

    def prune_clean_attempts(self, *, batch: int = REENCODE_BATCH) -> int:
        """Apply attempt retention ``warm-clean`` to entries already warm: delete every
        attempt row of each warm entry whose warm row a clean attempt made (its events,
        model calls and warm meta stay), ``batch`` entries per transaction; returns how
        many entries lost their attempts. Resumable."""
        done, after = 0, ""
        sql = self._db.sql("clean_warm_page")
        while True:
            ids = [str(r[0]) for r in self._db.rows(sql, {"after": after, "limit": batch})]
            if not ids:
                return done

            def work(chosen: list[str] = ids) -> int:
                return sum(
                    1 for i in chosen if self._db.count("delete_clean_warm_attempts", id=i) > 0
                )

            done += self._db.write(work)
            after = ids[-1]

    # -- verification ------------------------------------------------------------------------

    def packed_problems(self) -> list[str]:
        """Packed attempts and events that do not decode (for ``verify``)."""
        problems: list[str] = []
        checks: list[tuple[str, str, Callable[[bytes], object]]] = [
            ("packed_attempts_page", "attempt", rowmap.unpack_attempt),
            ("packed_events_page", "event", lambda p: rowmap.event_payload(None, p)),
            ("packed_second_events_page", "event", lambda p: rowmap.event_payload(None, p)),
        ]
        for key, what, decode in checks:
            sql, after = self._db.sql(key), 0
            while True:
                rows = self._db.rows(sql, {"after": after, "limit": 256})
                for row_id, entry_id, packed, item_id in rows:
                    after = int(row_id)
                    try:
                        decode(packed)
                    except ValueError as exc:
                        problems.append(
                            f"entry {entry_id}: {what} {item_id} does not decode: {exc}"
                        )
                if len(rows) < 256:
                    break
        return problems

    # -- sizes -----------------------------------------------------------------------------

    def storage(self) -> StorageSizes:
        """Bytes per tier (``stats --json``'s ``storage``): ``hot_content``,
        ``warm_narratives``, ``warm_records``, ``warm_meta`` (compact meta, digest bytes, 8
        for the identity reference), ``cold_archives`` (archive frames), ``dictionaries`` (zstd
        dictionaries), ``identities``, ``warm_source_bytes`` (the UTF-8 bytes of the sources
        the warm entries replaced), ``warm_ratio`` ((narratives + records + meta) / those
        sources) and ``cold_ratio`` ((archives + dictionaries) / those sources), both
        ``None`` with no warm entry, and ``retrieval_index`` (hot records, warm hashes and
        narrative keys, 16 bytes per fact key; the text index is not counted)."""
        row = self._db.row("storage_bytes")
        assert row is not None
        values = [int(v) for v in row]
        hot, narratives, records, meta, cold, dicts, sources, idents, hot_rec, warm_idx, facts = (
            values
        )
        warm_total = narratives + records + meta
        return {
            "hot_content": hot,
            "warm_narratives": narratives,
            "warm_records": records,
            "warm_meta": meta,
            "cold_archives": cold,
            "dictionaries": dicts,
            "identities": idents,
            "warm_source_bytes": sources,
            "warm_ratio": round(warm_total / sources, 4) if sources else None,
            "cold_ratio": round((cold + dicts) / sources, 4) if sources else None,
            "retrieval_index": hot_rec + warm_idx + facts,
        }


def unpack_narrative(value: object, dictionary: codec.CodecDictionary | None) -> str:
    """A stored narrative (a zstd frame of its UTF-8 bytes); ``ValueError`` if it is not."""
    if not isinstance(value, bytes | memoryview):
        raise ValueError("narrative is not a zstd frame")
    return codec.zstd_decompress(bytes(value), dictionary).decode("utf-8")
