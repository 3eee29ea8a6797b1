"""The store's side of retrieval: its search indexes, use counts, warm hashes, attestations.

``SearchIndexMixin`` is part of every ``MemoryStore``. It keeps the search indexes in step
inside the transactions that change them (``add``/``add_many`` index new entries, demotion
replaces an entry's fact keys with its warm record's, ``restore`` and promotion with its
source's again) and supplies the statements ``factdiff.retrieve`` ranks with. The text index
holds every entry's full source, hot or archived, so it never changes after ``add``.

Public methods: ``index_pending``, ``build_search_index`` (``search``, ``render_context``,
``attest`` and ``check_attestation`` are ``factdiff.store.retrieval``'s, above
``factdiff.retrieve``). SQL lives in ``sql/<dialect>/retrieval.sql``.

Promotion (``promote``) brings a warm entry back to hot with the same steps as
``MemoryStore.restore`` (hot content from the verified archive, warm row and archive
removed, tier hot) plus a ``promoted`` event: keep the two in step.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from factdiff.store import codec
from factdiff.store.indexing import IndexDoc, SchemaLookup, text_digest
from factdiff.store.model import IntegrityError, Tier
from factdiff.store.schema_resolver import SchemaResolver

if TYPE_CHECKING:
    from factdiff.extraction.record import FactRecord
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry

INDEX_BATCH = 256
"""Entries indexed per transaction by ``build_search_index``."""


def _store(mixin: SearchIndexMixin) -> MemoryStore:
    """The store a mixin method runs on (every ``SearchIndexMixin`` is a ``MemoryStore``)."""
    return cast("MemoryStore", mixin)


class SearchIndexMixin:
    """Retrieval methods of ``MemoryStore`` (see the module docstring)."""

    # -- public ----------------------------------------------------------------------------

    def index_pending(self, progress: Callable[[int], None] | None = None) -> int:
        """Index the facts of the entries added without them (``add_many(index_facts=False)``);
        returns how many. A search recorded as use runs it first."""
        return index_pending(_store(self), progress)

    def build_search_index(
        self,
        *,
        rebuild: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Index every entry the search indexes lack (all of them with ``rebuild``) and the
        facts of entries added without them; returns how many were indexed (``migrate`` runs
        it too)."""
        store = _store(self)
        if rebuild:
            store._write(partial(clear_search_index, store))
        total = 0
        while True:
            done = index_pass(store, progress, total)
            total += done
            if done == 0:
                break
        return total + index_pending(store, progress, total)


# -- index maintenance (inside the callers' write transactions) ---------------------------


def exec_many_if(store: MemoryStore, key: str, rows: list[dict[str, Any]]) -> None:
    """``_exec_many``, unless the dialect needs no statement for ``key``."""
    if rows and store._sql(key):
        store._exec_many(key, rows)


def hot_index_docs(
    store: MemoryStore, ids: Sequence[str], items: Sequence[Any], *, facts: bool = True
) -> list[Any]:
    """The index rows of entries about to be added (computed before the transaction)."""
    return store.services.indexer.hot_docs(SchemaResolver(store), ids, items, facts=facts)


def write_index_docs(store: MemoryStore, docs: Sequence[IndexDoc]) -> None:
    """Give each entry its doc number, text, fact keys and record or warm row."""
    if not docs:
        return
    numbers = [int(doc) for (doc,) in store._exec("allocate_search_docs", n=len(docs))]
    rows = [
        {"doc": number, "entry_id": doc.entry_id, "text": doc.text}
        for number, doc in zip(numbers, docs, strict=True)
    ]
    store._exec_many("insert_search_doc", rows)
    exec_many_if(store, "insert_search_text", rows)
    keys = [
        {"key_hash": key, "doc": number}
        for number, doc in zip(numbers, docs, strict=True)
        for key in doc.key_hashes
    ]
    exec_many_if(store, "insert_fact_key", keys)
    records = [
        {"entry_id": doc.entry_id, "record": doc.hot_record}
        for doc in docs
        if doc.hot_record is not None
    ]
    exec_many_if(store, "insert_hot_record", records)
    pending = [{"entry_id": doc.entry_id} for doc in docs if doc.facts_pending]
    exec_many_if(store, "insert_fact_pending", pending)
    for doc in docs:
        if doc.warm is not None:
            _keep_warm_index(store, doc, replace=False)


def _keep_warm_index(store: MemoryStore, doc: IndexDoc, *, replace: bool) -> None:
    """Write a warm entry's hashes and narrative keys (an existing row is kept unless
    ``replace``: the hashes recorded at compression are the reference ``verify`` uses)."""
    if doc.warm is None:
        return
    if store._one("select_narrative_keys", entry_id=doc.entry_id) is not None:
        if not replace:
            return
        store._exec("delete_warm_index", entry_id=doc.entry_id)
    store._exec(
        "insert_warm_index",
        entry_id=doc.entry_id,
        narrative_hash=codec.fingerprint(doc.warm.narrative_hash),
        record_hash=codec.fingerprint(doc.warm.record_hash),
        narrative_keys=pack_keys(doc.warm.narrative_keys),
    )


_KEYS_V1 = b"\x01"


def pack_keys(keys: Iterable[int]) -> bytes:
    """Narrative key hashes as stored: a version byte, then signed 64-bit big-endian ints."""
    items = list(keys)
    return _KEYS_V1 + struct.pack(f">{len(items)}q", *items)


def unpack_keys(value: Any) -> set[int]:
    """Inverse of ``pack_keys``; ``ValueError`` if ``value`` is not packed keys."""
    data = bytes(value)
    if data[:1] != _KEYS_V1 or (len(data) - 1) % 8:
        raise ValueError("narrative keys are not packed 64-bit ints")
    return set(struct.unpack(f">{(len(data) - 1) // 8}q", data[1:]))


def _reindex(store: MemoryStore, doc: IndexDoc) -> None:
    """Replace an entry's fact keys and record with ``doc``'s (indexing it whole if new).
    Only the keys that changed are written: a demoted entry's source record is usually the
    one its hot keys came from."""
    number = store._one("select_search_doc", entry_id=doc.entry_id)
    if number is None:
        write_index_docs(store, [doc])
        return
    wanted = set(doc.key_hashes)
    held = {
        int(row["key_hash"]) for row in store._rows(store._sql("select_fact_keys"), {"doc": number})
    }
    gone = [{"key_hash": k, "doc": int(number)} for k in sorted(held - wanted)]
    exec_many_if(store, "delete_fact_key", gone)
    new = [{"key_hash": k, "doc": int(number)} for k in sorted(wanted - held)]
    exec_many_if(store, "insert_fact_key", new)
    store._exec("delete_hot_record", entry_id=doc.entry_id)
    if doc.hot_record is not None:
        store._exec("insert_hot_record", entry_id=doc.entry_id, record=doc.hot_record)
    store._exec("delete_fact_pending", entry_id=doc.entry_id)


def warm_index_doc(
    store: MemoryStore,
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
    return store.services.indexer.warm_doc(
        SchemaResolver(store),
        entry_id,
        source,
        narrative,
        record,
        narrative_facts,
        record_hash,
        parsed,
    )


def schema_lookup(store: MemoryStore) -> SchemaLookup:
    """The store's schemas by name and version, as the index reads them."""
    return SchemaResolver(store)


def index_demoted(store: MemoryStore, doc: IndexDoc) -> None:
    """A hot entry became warm: its warm record's facts, hashes and narrative keys."""
    _reindex(store, doc)
    _keep_warm_index(store, doc, replace=True)


def index_rehydrated(store: MemoryStore, entry: Entry, data: bytes) -> None:
    """A warm entry is hot again (restored or promoted): its source's record and facts again
    (extracted here, inside the transaction, under the schema the entry resolves to)."""
    indexer = store.services.indexer
    doc = indexer.entry_hot_doc(SchemaResolver(store), entry, codec.decode_content(data))
    _reindex(store, doc)
    store._exec("delete_warm_index", entry_id=entry.id)
    store._exec("delete_source_fetches", entry_id=entry.id)


def index_pending(
    store: MemoryStore, progress: Callable[[int], None] | None = None, base: int = 0
) -> int:
    """Index the facts of every entry added without them, a batch per transaction; returns
    how many were indexed. An entry demoted or restored meanwhile was indexed by that."""
    indexer, schemas = store.services.indexer, SchemaResolver(store)
    done, after = 0, ""
    sql = store._sql("fact_pending_page")
    while True:
        rows = store._rows(sql, {"after": after, "limit": INDEX_BATCH})
        ids = [str(entry_id) for (entry_id,) in rows]
        if not ids:
            return done
        after = ids[-1]
        docs = []
        for entry_id in ids:
            entry = store._load(entry_id)
            if entry is not None and entry.tier is Tier.HOT and entry.content is not None:
                docs.append(indexer.entry_hot_doc(schemas, entry, entry.content))

        def work(batch: list[IndexDoc] = docs) -> int:
            count = 0
            for doc in batch:
                if store._count("delete_fact_pending", entry_id=doc.entry_id) == 1:
                    _reindex(store, doc)
                    count += 1
            return count

        done += store._write(work)
        if progress is not None:
            progress(base + done)


def has_pending(store: MemoryStore) -> bool:
    """Whether some entry waits for its facts to be indexed."""
    return bool(store._one("any_fact_pending"))


def clear_search_index(store: MemoryStore) -> None:
    """Empty the search indexes (the warm hashes stay: they are the reference)."""
    store._exec("clear_fact_pending")
    store._exec("clear_fact_index")
    if store._sql("clear_search_text"):
        store._exec("clear_search_text")
    store._exec("clear_hot_records")
    store._exec("clear_search_docs")


def index_pass(store: MemoryStore, progress: Callable[[int], None] | None, base: int) -> int:
    """Index every entry still missing from the indexes, a batch per transaction."""
    indexer, schemas = store.services.indexer, SchemaResolver(store)
    done, after = 0, ""
    sql = store._sql("unindexed_page")
    while True:
        rows = store._rows(sql, {"after": after, "limit": INDEX_BATCH})
        ids = [str(entry_id) for (entry_id,) in rows]
        if not ids:
            return done
        after = ids[-1]
        docs: list[IndexDoc] = []
        for entry_id in ids:
            entry = store._load(entry_id)
            if entry is None:  # pragma: no cover - entries are never deleted
                continue
            if entry.tier is Tier.HOT and entry.content is not None:
                docs.append(indexer.entry_hot_doc(schemas, entry, entry.content))
            elif entry.warm is not None:
                source = store.read_cold(entry_id)
                warm = entry.warm
                docs.append(
                    indexer.warm_doc(schemas, entry_id, source, warm.narrative, warm.record)
                )

        def work(batch: list[IndexDoc] = docs) -> int:
            fresh = [
                d for d in batch if store._one("select_search_doc", entry_id=d.entry_id) is None
            ]
            write_index_docs(store, fresh)
            return len(fresh)

        done += store._write(work)
        if progress is not None:
            progress(base + done)


def verify_retrieval(store: MemoryStore) -> list[str]:
    """Problems with warm narratives and records (against their recorded hashes)."""
    problems: list[str] = []
    sql, after = store._sql("warm_index_page"), ""
    while True:
        rows = store._rows(sql, {"after": after, "limit": 64})
        for entry_id, narrative_hash, record_hash in rows:
            after = str(entry_id)
            try:
                entry = store._load(after)
            except IntegrityError as exc:
                if cold_readable(store, after):  # else the cold check reports it
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


def unindexed_problems(store: MemoryStore) -> list[str]:
    """One line when entries are missing from the search indexes."""
    missing = int(store._one("count_unindexed"))
    if missing:
        are = "entry is" if missing == 1 else "entries are"
        return [f"{missing} {are} missing from the search index: run `factdiff migrate`"]
    return []


def cold_readable(store: MemoryStore, entry_id: str) -> bool:
    """Whether a warm entry's archive decompresses to its hash."""
    try:
        store.read_cold(entry_id)
    except IntegrityError:
        return False
    return True


def _warm_problems(
    entry_id: str,
    narrative: str,
    record: Mapping[str, Any],
    narrative_hash: Any,
    record_hash: Any,
) -> list[str]:
    """``narrative_hash`` and ``record_hash`` as the warm row holds them
    (``codec.digest_matches``)."""
    if narrative_hash is None or record_hash is None:
        return [
            f"entry {entry_id}: warm entry has no recorded hashes: restore it "
            "(`factdiff restore`) and demote it again"
        ]
    from factdiff.store.warm_columns import record_digest

    problems = []
    if not codec.digest_matches(narrative_hash, text_digest(str(narrative))):
        problems.append(f"entry {entry_id}: warm narrative does not match its hash (edited)")
    if not codec.digest_matches(record_hash, record_digest(record)):
        problems.append(f"entry {entry_id}: warm fact record does not match its hash (edited)")
    return problems
