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

import json
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from factdiff.store import codec
from factdiff.store.model import EntryNotFound, EventType, IntegrityError, NewEvent, Tier

if TYPE_CHECKING:
    from factdiff.extraction.record import FactRecord
    from factdiff.retrieve.index import IndexDoc, SchemaLookup
    from factdiff.retrieve.settings import RetrievalSettings
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry

INDEX_BATCH = 256
"""Entries indexed per transaction by ``build_search_index``."""


def _text_expression(dialect: str) -> Callable[[Iterable[str], Iterable[str], bool], str]:
    from factdiff.retrieve import terms

    return terms.tsquery_expression if dialect == "postgres" else terms.fts5_expression


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
    from factdiff.retrieve.index import hot_docs
    from factdiff.retrieve.schemas import SchemaResolver

    return hot_docs(SchemaResolver(store), ids, items, facts=facts)


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
    from factdiff.retrieve.index import warm_doc
    from factdiff.retrieve.schemas import SchemaResolver

    return warm_doc(
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
    from factdiff.retrieve.schemas import SchemaResolver

    return SchemaResolver(store)


def index_demoted(store: MemoryStore, doc: IndexDoc) -> None:
    """A hot entry became warm: its warm record's facts, hashes and narrative keys."""
    _reindex(store, doc)
    _keep_warm_index(store, doc, replace=True)


def index_rehydrated(store: MemoryStore, entry: Entry, data: bytes) -> None:
    """A warm entry is hot again (restored or promoted): its source's record and facts again
    (extracted here, inside the transaction, under the schema the entry resolves to)."""
    from factdiff.retrieve.index import entry_hot_doc
    from factdiff.retrieve.schemas import SchemaResolver

    doc = entry_hot_doc(SchemaResolver(store), entry, codec.decode_content(data))
    _reindex(store, doc)
    store._exec("delete_warm_index", entry_id=entry.id)
    store._exec("delete_source_fetches", entry_id=entry.id)


def index_pending(
    store: MemoryStore, progress: Callable[[int], None] | None = None, base: int = 0
) -> int:
    """Index the facts of every entry added without them, a batch per transaction; returns
    how many were indexed. An entry demoted or restored meanwhile was indexed by that."""
    from factdiff.retrieve.index import entry_hot_doc
    from factdiff.retrieve.schemas import SchemaResolver

    schemas = SchemaResolver(store)
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
                docs.append(entry_hot_doc(schemas, entry, entry.content))

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
    from factdiff.retrieve.index import entry_hot_doc, warm_doc
    from factdiff.retrieve.schemas import SchemaResolver

    schemas = SchemaResolver(store)
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
                docs.append(entry_hot_doc(schemas, entry, entry.content))
            elif entry.warm is not None:
                source = store.read_cold(entry_id)
                warm = entry.warm
                docs.append(warm_doc(schemas, entry_id, source, warm.narrative, warm.record))

        def work(batch: list[IndexDoc] = docs) -> int:
            fresh = [
                d for d in batch if store._one("select_search_doc", entry_id=d.entry_id) is None
            ]
            write_index_docs(store, fresh)
            return len(fresh)

        done += store._write(work)
        if progress is not None:
            progress(base + done)


@dataclass(frozen=True)
class TextQuery:
    """A text query: entries with the ``selective`` words (all of them with ``all_of``),
    ranked over ``every`` word, each weighted by ``weights`` (its inverse document
    frequency; the PostgreSQL dialect uses them, bm25 computes its own)."""

    selective: tuple[str, ...]
    every: tuple[str, ...]
    all_of: bool
    weights: Mapping[str, float]

    def expression(self, dialect: str) -> str:
        """The dialect's match expression."""
        return _text_expression(dialect)(self.selective, self.every, self.all_of)

    def params(self, dialect: str) -> dict[str, Any]:
        """The statement parameters of this query."""
        weights = {t: round(self.weights.get(t, 1.0), 6) for t in self.every}
        return {"query": self.expression(dialect), "weights": json.dumps(weights, sort_keys=True)}

    def narrowed(self) -> TextQuery:
        """The query over its selective words only (cheap to score per entry)."""
        return TextQuery(self.selective, self.selective, False, self.weights)


def term_counts(store: MemoryStore, terms: Sequence[str], cap: int) -> dict[str, int]:
    """How many entries hold each of ``terms`` (counted up to ``cap``)."""
    if not terms:
        return {}
    params = {"terms": json.dumps(list(terms)), "cap": cap}
    rows = store._rows(store._sql("search_term_counts"), params)
    return {str(term): int(count) for term, count in rows}


def text_candidates(
    store: MemoryStore, query: TextQuery, limit: int, agent: str | None, tier: str | None
) -> list[tuple[int, float]]:
    """The best ``limit`` docs for the text query, with their scores (higher is better)."""
    params: dict[str, Any] = {
        **query.params(store._dialect.name),
        "limit": limit,
        "agent": agent,
        "tier": tier,
    }
    if agent is None and tier is None:
        sql = store._sql("search_text")
    else:
        sql = store._sql("search_text_filtered", agent=agent is not None, tier=tier is not None)
    return [(int(doc), float(score)) for doc, score in store._rows(sql, params)]


def text_scores(store: MemoryStore, query: TextQuery, docs: Iterable[int]) -> dict[int, float]:
    """The text scores of ``docs`` for ``query`` (docs that do not match are left out)."""
    chosen = sorted(set(docs))
    if not chosen:
        return {}
    params = {**query.params(store._dialect.name), "docs": json.dumps(chosen)}
    rows = store._rows(store._sql("search_text_scores"), params)
    return {int(doc): float(score) for doc, score in rows}


def fact_counts(store: MemoryStore, key_hashes: Iterable[int], cap: int) -> dict[int, int]:
    """How many entries hold each fact key (counted up to ``cap``)."""
    keys = sorted(set(key_hashes))
    if not keys:
        return {}
    params = {"keys": json.dumps(keys), "cap": cap}
    rows = store._rows(store._sql("search_fact_counts"), params)
    return {int(key): int(count) for key, count in rows}


def fact_docs(store: MemoryStore, key_hashes: Iterable[int]) -> set[int]:
    """The docs holding any of the fact keys."""
    keys = sorted(set(key_hashes))
    if not keys:
        return set()
    rows = store._rows(store._sql("search_fact_docs"), {"keys": json.dumps(keys)})
    return {int(doc) for _, doc in rows}


def fact_hits(
    store: MemoryStore, key_hashes: Iterable[int], docs: Iterable[int]
) -> dict[int, set[int]]:
    """doc -> the ``key_hashes`` it holds (docs holding none are left out)."""
    params = {
        "keys": json.dumps(sorted(set(key_hashes))),
        "docs": json.dumps(sorted(set(docs))),
    }
    held: dict[int, set[int]] = {}
    for key, doc in store._rows(store._sql("search_fact_hits"), params):
        held.setdefault(int(doc), set()).add(int(key))
    return held


def doc_entries(store: MemoryStore, docs: Iterable[int]) -> dict[int, tuple[str, str, str]]:
    """doc -> (entry id, agent, tier)."""
    params = {"docs": json.dumps(sorted(set(docs)))}
    rows = store._rows(store._sql("search_docs_entries"), params)
    return {int(doc): (str(eid), str(agent), str(tier)) for doc, eid, agent, tier in rows}


def hot_record(store: MemoryStore, entry_id: str) -> bytes | None:
    """A hot entry's packed fact record, if the store has it."""
    data = store._one("select_hot_record", entry_id=entry_id)
    return None if data is None else bytes(data)


def narrative_keys(store: MemoryStore, entry_id: str) -> set[int] | None:
    """The fact key hashes a warm entry's narrative states (None if not recorded)."""
    found = store._one("select_narrative_keys", entry_id=entry_id)
    return None if found is None else unpack_keys(found)


def hit_entries(
    store: MemoryStore, entry_ids: Sequence[str]
) -> dict[str, tuple[Entry, bytes | None, set[int] | None]]:
    """The entries as a search shows them, in one statement: entry id -> (the entry with its
    content or warm view, its packed hot record, the key hashes its narrative states)."""
    from dataclasses import replace

    from factdiff.store import rows as rowmap
    from factdiff.store.compact_storage import WARM_COLUMNS

    if not entry_ids:
        return {}
    rows = store._rows(store._sql("search_hit_rows"), {"ids": json.dumps(list(entry_ids))})
    found: dict[str, tuple[Entry, bytes | None, set[int] | None]] = {}
    for row in rows:
        entry = rowmap.entry(row)
        warm = row[rowmap.FULL_WARM : rowmap.FULL_WARM + WARM_COLUMNS]
        if entry.tier is Tier.HOT:
            content = None if row["content"] is None else codec.decode_content(row["content"])
            entry = replace(entry, content=content)
        elif warm[0] is not None:
            entry = replace(entry, warm=store._warm_view(entry, warm))
        packed = None if row["hot_record"] is None else bytes(row["hot_record"])
        keys = None if row["narrative_keys"] is None else unpack_keys(row["narrative_keys"])
        found[entry.id] = (entry, packed, keys)
    return found


def doc_span(store: MemoryStore) -> int:
    """About how many entries the indexes hold (the highest doc number)."""
    return int(store._one("search_doc_span"))


def record_use(
    store: MemoryStore,
    now: datetime,
    touched: Sequence[str],
    fetched: Sequence[str],
    settings: RetrievalSettings,
) -> list[str]:
    """One write: mark ``touched`` as used, count a source fetch for each of ``fetched``,
    and promote those whose fetches within the window now exceed
    ``settings.promote_after``. Returns the promoted ids."""
    now_us = codec.to_micros(now, "now")
    since = now_us - codec.duration_micros(settings.promote_window, "promote_window")

    def work() -> list[str]:
        for entry_id in touched:
            store._exec("touch", id=entry_id, now=now_us)
        promoted = []
        for entry_id in fetched:
            store._exec("insert_source_fetch", entry_id=entry_id, at=now_us)
            if settings.promote_after is None:
                continue
            count = int(store._one("count_source_fetches", entry_id=entry_id, since=since))
            if count > settings.promote_after and promote(store, entry_id, now_us, count, settings):
                promoted.append(entry_id)
        return promoted

    return store._write(work)


def promote(
    store: MemoryStore,
    entry_id: str,
    now_us: int,
    fetches: int,
    settings: RetrievalSettings,
) -> bool:
    """Bring a warm entry back to hot (inside a write); ``False`` if it is not warm."""
    from factdiff.store import rows as rowmap

    row = store._row("select_entry", id=entry_id)
    if row is None:
        raise EntryNotFound(entry_id)
    entry = rowmap.entry(row)
    if entry.tier is not Tier.WARM:
        return False
    store._rehydrate(entry, now_us)
    payload = {
        "fetches": fetches,
        "window_seconds": settings.promote_window.total_seconds(),
        "promote_after": settings.promote_after,
        "content_hash": entry.content_hash,
    }
    store._append_events([NewEvent(EventType.PROMOTED, payload)], entry_id, entry.agent_id, now_us)
    return True


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
    from factdiff.retrieve.index import text_digest
    from factdiff.store.warm_columns import record_digest

    problems = []
    if not codec.digest_matches(narrative_hash, text_digest(str(narrative))):
        problems.append(f"entry {entry_id}: warm narrative does not match its hash (edited)")
    if not codec.digest_matches(record_hash, record_digest(record)):
        problems.append(f"entry {entry_id}: warm fact record does not match its hash (edited)")
    return problems
