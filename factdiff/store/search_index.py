"""The store's side of retrieval: its search indexes, use counts, warm hashes, attestations.

``SearchIndex`` is a repository over the store's ``Database``. It keeps the search indexes
in step inside the transactions that change them (``add``/``add_many`` index new entries,
demotion replaces an entry's fact keys with its warm record's, ``restore`` and promotion
with its source's again) and supplies the statements ``factdiff.retrieve`` ranks with. The
text index holds every entry's full source, hot or archived, so it never changes after
``add``. The rows are made by the store's ``Indexer`` (``factdiff.store.indexing``) with the
store's schemas.

Public methods: ``index_pending``, ``build_search_index`` (``search``, ``render_context``,
``attest`` and ``check_attestation`` are ``factdiff.store.retrieval``'s, above
``factdiff.retrieve``). SQL lives in ``sql/<dialect>/retrieval.sql``. The store's other
parts are given the bound methods they use (``index_demoted``, ``verify_retrieval``...).

Promotion (``promote``) brings a warm entry back to hot with the same steps as
``MemoryStore.restore`` (hot content from the verified archive, warm row and archive
removed, tier hot) plus a ``promoted`` event: keep the two in step.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from factdiff.extraction.record import FactRecord
from factdiff.store import codec
from factdiff.store.database import Database, Row
from factdiff.store.indexing import (
    IndexDoc,
    Indexer,
    SchemaLookup,
    index_text,
    text_digest,
    unpack_json,
)
from factdiff.store.model import Entry, IntegrityError, NewEntry, Tier
from factdiff.store.schema_resolver import SchemaResolver
from factdiff.store.warm_columns import record_digest

__all__ = ["INDEX_BATCH", "SearchIndex", "pack_keys", "unpack_keys"]

INDEX_BATCH = 256
"""Entries indexed per transaction by ``build_search_index``."""
Params = dict[str, int | str | bytes | None]
"""The parameters of one index statement."""


class SearchIndex:
    """The search indexes of one store (see the module docstring): over ``db``, with the
    store's ``indexer`` and ``schemas`` (each resolved when used), ``load`` reading an entry
    and ``read_cold`` a warm entry's verified source."""

    def __init__(
        self,
        db: Database,
        indexer: Callable[[], Indexer],
        schemas: Callable[[], SchemaResolver],
        load: Callable[[str], Entry | None],
        read_cold: Callable[[str], str],
    ) -> None:
        self._db = db
        self._indexer = indexer
        self._schemas = schemas
        self._load = load
        self._read_cold = read_cold

    # -- public ----------------------------------------------------------------------------

    def index_pending(self, progress: Callable[[int], None] | None = None) -> int:
        """Index the facts of the entries added without them (``add_many(index_facts=False)``);
        returns how many. A search recorded as use runs it first."""
        return self.pending(progress)

    def build_search_index(
        self,
        *,
        rebuild: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Index every entry the search indexes lack (all of them with ``rebuild``) and the
        facts of entries added without them; returns how many were indexed (``migrate`` runs
        it too). An entry whose fact record is stored (an imported store's hot records and
        warm narrative keys) is keyed by it, not extracted again; ``rebuild`` drops the hot
        records, so every hot entry is extracted anew."""
        if rebuild:
            self._db.write(self.clear)
        total = 0
        while True:
            done = self._index_pass(progress, total)
            total += done
            if done == 0:
                break
        return total + self.pending(progress, total)

    # -- index rows (made before the callers' write transactions) --------------------------

    def hot_docs(
        self, ids: Sequence[str], items: Sequence[NewEntry], *, facts: bool = True
    ) -> list[IndexDoc]:
        """The index rows of entries about to be added (computed before the transaction)."""
        return self._indexer().hot_docs(self._schemas(), ids, items, facts=facts)

    def warm_doc(
        self,
        entry_id: str,
        source: str,
        narrative: str,
        record: Mapping[str, Any],
        narrative_facts: FactRecord | None = None,
        record_hash: str | None = None,
        parsed: FactRecord | None = None,
    ) -> IndexDoc:
        """A demoted entry's index rows (computed before the demotion's transaction;
        ``record_hash``: the record's digest, ``parsed``: the ``FactRecord`` whose JSON
        ``record`` is, when made already)."""
        return self._indexer().warm_doc(
            self._schemas(),
            entry_id,
            source,
            narrative,
            record,
            narrative_facts,
            record_hash,
            parsed,
        )

    def hot_doc(self, entry: Entry, text: str) -> IndexDoc:
        """The index rows of a stored entry whose source is ``text``, as a hot entry."""
        return self._indexer().entry_hot_doc(self._schemas(), entry, text)

    def schema_lookup(self) -> SchemaLookup:
        """The store's schemas by name and version, as the index reads them."""
        return self._schemas()

    # -- index maintenance (inside the callers' write transactions) ------------------------

    def write_docs(self, docs: Sequence[IndexDoc]) -> None:
        """Give each entry its doc number, text, fact keys and record or warm row."""
        if not docs:
            return
        numbers = [int(doc) for (doc,) in self._db.exec("allocate_search_docs", n=len(docs))]
        rows: list[Params] = [
            {"doc": number, "entry_id": doc.entry_id, "text": doc.text}
            for number, doc in zip(numbers, docs, strict=True)
        ]
        self._db.exec_many("insert_search_doc", rows)
        self._exec_many_if("insert_search_text", rows)
        self._insert_fact_keys(
            [
                (key, number)
                for number, doc in zip(numbers, docs, strict=True)
                for key in doc.key_hashes
            ]
        )
        records: list[Params] = [
            {"entry_id": doc.entry_id, "record": doc.hot_record}
            for doc in docs
            if doc.hot_record is not None
        ]
        self._exec_many_if("insert_hot_record", records)
        pending: list[Params] = [{"entry_id": doc.entry_id} for doc in docs if doc.facts_pending]
        self._exec_many_if("insert_fact_pending", pending)
        for doc in docs:
            if doc.warm is not None:
                self._keep_warm_index(doc, replace=False)

    def reindex(self, doc: IndexDoc) -> None:
        """Replace an entry's fact keys and record with ``doc``'s (indexing it whole if new).
        Only the keys that changed are written: a demoted entry's source record is usually
        the one its hot keys came from."""
        number = self._db.one("select_search_doc", entry_id=doc.entry_id)
        if number is None:
            self.write_docs([doc])
            return
        wanted = set(doc.key_hashes)
        held = {
            int(row["key_hash"])
            for row in self._db.rows(self._db.sql("select_fact_keys"), {"doc": number})
        }
        gone: list[Params] = [{"key_hash": k, "doc": int(number)} for k in sorted(held - wanted)]
        self._exec_many_if("delete_fact_key", gone)
        new: list[Params] = [{"key_hash": k, "doc": int(number)} for k in sorted(wanted - held)]
        self._exec_many_if("insert_fact_key", new)
        self._db.exec("delete_hot_record", entry_id=doc.entry_id)
        if doc.hot_record is not None:
            self._db.exec("insert_hot_record", entry_id=doc.entry_id, record=doc.hot_record)
        self._db.exec("delete_fact_pending", entry_id=doc.entry_id)

    def index_demoted(self, doc: IndexDoc) -> None:
        """A hot entry became warm: its warm record's facts, hashes and narrative keys."""
        self.reindex(doc)
        self._keep_warm_index(doc, replace=True)

    def index_rehydrated(self, entry: Entry, data: bytes) -> None:
        """A warm entry is hot again (restored or promoted): its source's record and facts
        again (extracted here, inside the transaction, under the schema the entry resolves
        to)."""
        self.reindex(self.hot_doc(entry, codec.decode_content(data)))
        self._db.exec("delete_warm_index", entry_id=entry.id)
        self._db.exec("delete_source_fetches", entry_id=entry.id)

    def clear(self) -> None:
        """Empty the search indexes (the warm hashes stay: they are the reference)."""
        self._db.exec("clear_fact_pending")
        self._db.exec("clear_fact_index")
        if self._db.sql("clear_search_text"):
            self._db.exec("clear_search_text")
        self._db.exec("clear_hot_records")
        self._db.exec("clear_search_docs")

    def _insert_fact_keys(self, pairs: list[tuple[int, int]]) -> None:
        """Index ``(key_hash, doc)`` pairs in one statement (``insert_fact_keys``)."""
        if pairs:
            self._db.exec("insert_fact_keys", pairs=json.dumps(pairs))

    def _exec_many_if(self, key: str, rows: list[Params]) -> None:
        """``exec_many``, unless the dialect needs no statement for ``key``."""
        if rows and self._db.sql(key):
            self._db.exec_many(key, rows)

    def _keep_warm_index(self, doc: IndexDoc, *, replace: bool) -> None:
        """Write a warm entry's hashes and narrative keys (an existing row is kept unless
        ``replace``: the hashes recorded at compression are the reference ``verify`` uses)."""
        if doc.warm is None:
            return
        if self._db.one("select_narrative_keys", entry_id=doc.entry_id) is not None:
            if not replace:
                return
            self._db.exec("delete_warm_index", entry_id=doc.entry_id)
        self._db.exec(
            "insert_warm_index",
            entry_id=doc.entry_id,
            narrative_hash=codec.fingerprint(doc.warm.narrative_hash),
            record_hash=codec.fingerprint(doc.warm.record_hash),
            narrative_keys=pack_keys(doc.warm.narrative_keys),
        )

    # -- indexing in batches ---------------------------------------------------------------

    def has_pending(self) -> bool:
        """Whether some entry waits for its facts to be indexed."""
        return bool(self._db.one("any_fact_pending"))

    def pending(self, progress: Callable[[int], None] | None = None, base: int = 0) -> int:
        """Index the facts of every entry added without them, a batch per transaction;
        returns how many were indexed (``progress`` is told ``base`` plus that count after
        each batch). An entry demoted or restored meanwhile was indexed by that."""
        indexer, schemas = self._indexer(), self._schemas()
        done = 0
        for ids in self._id_batches("fact_pending_page"):
            docs = []
            for entry_id in ids:
                entry = self._load(entry_id)
                if entry is not None and entry.tier is Tier.HOT and entry.content is not None:
                    docs.append(indexer.entry_hot_doc(schemas, entry, entry.content))

            def work(batch: list[IndexDoc] = docs) -> int:
                count = 0
                for doc in batch:
                    if self._db.count("delete_fact_pending", entry_id=doc.entry_id) == 1:
                        self.reindex(doc)
                        count += 1
                return count

            done += self._db.write(work)
            if progress is not None:
                progress(base + done)
        return done

    def _id_batches(self, key: str) -> Iterator[list[str]]:
        """The entry ids statement ``key`` lists, a keyset page of ``INDEX_BATCH`` at a time
        (each page read after the caller is done with the one before)."""
        for rows in self._row_batches(key):
            yield [str(row[0]) for row in rows]

    def _row_batches(self, key: str) -> Iterator[list[Row]]:
        """The rows statement ``key`` lists (an entry id first), a keyset page of
        ``INDEX_BATCH`` at a time, as ``_id_batches``."""
        sql, after = self._db.sql(key), ""
        while True:
            rows = self._db.rows(sql, {"after": after, "limit": INDEX_BATCH})
            if not rows:
                return
            yield rows
            after = str(rows[-1][0])

    def _index_pass(self, progress: Callable[[int], None] | None, base: int) -> int:
        """Index every entry still missing from the indexes, a batch per transaction: from
        its stored fact record where it has one (an imported store), else extracted."""
        done = 0
        for rows in self._row_batches("unindexed_record_page"):
            docs = [doc for row in rows if (doc := self._unindexed_doc(row)) is not None]

            span = {"first": str(rows[0]["id"]), "last": str(rows[-1]["id"])}

            def work(batch: list[IndexDoc] = docs, ids: dict[str, str] = span) -> int:
                held = self._db.rows(self._db.sql("indexed_in_range"), ids)
                indexed = {str(entry_id) for (entry_id,) in held}
                fresh = [d for d in batch if d.entry_id not in indexed]
                self.write_docs(fresh)
                return len(fresh)

            done += self._db.write(work)
            if progress is not None:
                progress(base + done)
        return done

    def _unindexed_doc(self, row: Row) -> IndexDoc | None:
        """The index rows of an entry missing from the indexes (a row of
        ``unindexed_record_page``). A hot entry with its fact record stored, or a warm entry
        with its narrative keys, is keyed by its stored record (nothing is extracted; the
        hot record and warm hashes stay as stored); any other is extracted."""
        entry_id = str(row["id"])
        if row["tier"] == Tier.HOT.value and row["content"] is not None:
            text = codec.decode_content(row["content"])
            if row["hot_record"] is not None:
                return IndexDoc(entry_id, index_text(text), self._hot_keys(entry_id, row))
            entry = self._load(entry_id)
            if entry is None:  # pragma: no cover - entries are never deleted
                return None
            return self._indexer().entry_hot_doc(self._schemas(), entry, text)
        entry = self._load(entry_id)
        if entry is None or entry.warm is None:  # pragma: no cover - hot or warm, never neither
            return None
        source, warm = self._read_cold(entry_id), entry.warm
        if row["narrative_keyed"]:
            keys = self._indexer().stored_keys(warm.record) or ()
            return IndexDoc(entry_id, index_text(source), keys)
        return self._indexer().warm_doc(
            self._schemas(), entry_id, source, warm.narrative, warm.record
        )

    def _hot_keys(self, entry_id: str, row: Row) -> tuple[int, ...]:
        """The fact keys of a hot entry's stored record; ``IntegrityError`` if it is none."""
        try:
            keys = self._indexer().stored_keys(unpack_json(bytes(row["hot_record"])))
        except (zlib.error, ValueError):
            keys = None
        if keys is None:
            raise IntegrityError(entry_id, "its stored fact record is not a packed fact record")
        return keys

    # -- verification ----------------------------------------------------------------------

    def verify_retrieval(self) -> list[str]:
        """Problems with warm narratives and records (against their recorded hashes)."""
        problems: list[str] = []
        sql, after = self._db.sql("warm_index_page"), ""
        while True:
            rows = self._db.rows(sql, {"after": after, "limit": 64})
            for entry_id, narrative_hash, record_hash in rows:
                after = str(entry_id)
                try:
                    entry = self._load(after)
                except IntegrityError as exc:
                    if self._cold_readable(after):  # else the cold check reports it
                        problems.append(str(exc))
                    continue
                if entry is None or entry.warm is None:  # pragma: no cover - restored meanwhile
                    continue
                warm = entry.warm
                problems.extend(
                    _warm_problems(after, warm.narrative, warm.record, narrative_hash, record_hash)
                )
            if len(rows) < 64:
                break
        return problems

    def unindexed_problems(self) -> list[str]:
        """One line when entries are missing from the search indexes."""
        missing = int(self._db.one("count_unindexed"))
        if missing:
            are = "entry is" if missing == 1 else "entries are"
            return [f"{missing} {are} missing from the search index: run `factdiff migrate`"]
        return []

    def _cold_readable(self, entry_id: str) -> bool:
        """Whether a warm entry's archive decompresses to its hash."""
        try:
            self._read_cold(entry_id)
        except IntegrityError:
            return False
        return True


_KEYS_V1 = b"\x01"


def pack_keys(keys: Iterable[int]) -> bytes:
    """Narrative key hashes as stored: a version byte, then signed 64-bit big-endian ints."""
    items = list(keys)
    return _KEYS_V1 + struct.pack(f">{len(items)}q", *items)


def unpack_keys(value: bytes | memoryview) -> set[int]:
    """Inverse of ``pack_keys``; ``ValueError`` if ``value`` is not packed keys."""
    data = bytes(value)
    if data[:1] != _KEYS_V1 or (len(data) - 1) % 8:
        raise ValueError("narrative keys are not packed 64-bit ints")
    return set(struct.unpack(f">{(len(data) - 1) // 8}q", data[1:]))


def _warm_problems(
    entry_id: str,
    narrative: str,
    record: Mapping[str, Any],
    narrative_hash: object,
    record_hash: object,
) -> list[str]:
    """``narrative_hash`` and ``record_hash`` as the warm row holds them
    (``codec.digest_matches``)."""
    if narrative_hash is None or record_hash is None:
        return [
            f"entry {entry_id}: warm entry has no recorded hashes: restore it "
            "(`factdiff restore`) and demote it again"
        ]
    problems = []
    if not codec.digest_matches(narrative_hash, text_digest(str(narrative))):
        problems.append(f"entry {entry_id}: warm narrative does not match its hash (edited)")
    if not codec.digest_matches(record_hash, record_digest(record)):
        problems.append(f"entry {entry_id}: warm fact record does not match its hash (edited)")
    return problems
