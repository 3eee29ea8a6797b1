"""What the search indexes hold for one entry: its source text, its fact keys, its record.

* **Text**: the entry's full source, hot or archived. A warm narrative is about a third of its
  source; keeping the archived source's words indexed means demotion never makes an entry
  harder to find. A hit that matched only words or facts the narrative no longer states is
  marked (``where: "archive"``) and comes back with its source attached (see
  ``factdiff.retrieve.search``).
* **Facts**: the canonical keys (``factdiff.retrieve.keys``) of the entry's fact record. A hot
  entry's record is the rules extraction of its source under its schema (the extraction
  demotion makes), run when the entry is added and stored with it (zlib-compressed canonical
  JSON, ``hot_records``), so a search never re-reads a source; a warm entry's record is the
  source record stored at compression.
* **Warm entries** also keep the hashes of their narrative and record (``verify`` names an
  edit) and the fact keys their narrative states (a match outside them is ``archive``).

The facts of a text longer than the rules extractor reads (``MAX_TEXT_CHARS``, 2,000,000
characters) are indexed from its first ``MAX_TEXT_CHARS`` characters (cut at a line end);
the rest of such an entry is found by its words. (Such entries are never compressed either:
demotion refuses sources over 1 MB.)
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import MAX_TEXT_CHARS, RulesExtractor, infer_reference
from factdiff.retrieve.keys import key_hashes, record_keys
from factdiff.retrieve.schemas import GENERIC, SchemaResolver
from factdiff.schema.builtin import builtin_schema
from factdiff.schema.model import FactSchema, canonical_json
from factdiff.store.indexing import (
    IndexDoc,
    SchemaLookup,
    WarmIndex,
    index_text,
    text_digest,
    unpack_json,
)
from factdiff.store.warm_columns import record_digest

if TYPE_CHECKING:
    from factdiff.store.model import Entry, NewEntry
    from factdiff.values.base import JSON

__all__ = [
    "INDEX_EXTRACTOR",
    "IndexDoc",
    "SchemaLookup",
    "WarmIndex",
    "entry_hot_doc",
    "extract_source",
    "hot_doc",
    "hot_docs",
    "index_text",
    "indexes_as",
    "pack_record",
    "readable",
    "reference_date",
    "stored_keys",
    "stored_record",
    "text_digest",
    "unpack_json",
    "unpack_record",
    "warm_doc",
]


INDEX_EXTRACTOR = RulesExtractor()
"""The extractor of hot entries' records, of warm narratives' facts, and of queries."""


def reference_date(occurred_at: datetime | None, text: str) -> date | None:
    """The date relative dates resolve against: the entry's own local date, else the first
    full date its text states (as demotion does)."""
    if occurred_at is not None:
        return occurred_at.date()
    return infer_reference(readable(text))


def readable(text: str) -> str:
    """``text``, or its first ``MAX_TEXT_CHARS`` characters cut after a line end."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_TEXT_CHARS)
    return text[: cut + 1] if cut > 0 else text[:MAX_TEXT_CHARS]


def extract_source(text: str, schema: FactSchema, reference: date | None) -> FactRecord:
    """The rules record of ``text`` (of its first ``MAX_TEXT_CHARS`` when longer)."""
    return INDEX_EXTRACTOR.extract(readable(text), schema, reference)


def pack_record(record: FactRecord) -> bytes:
    """A record as stored for a hot entry: zlib of its canonical JSON."""
    return zlib.compress(canonical_json(record.to_json()).encode("utf-8"), 6)


def unpack_record(data: bytes) -> FactRecord:
    """Inverse of ``pack_record``."""
    return FactRecord.from_json(unpack_json(data))


def stored_record(record: Mapping[str, JSON]) -> FactRecord | None:
    """A stored fact record, or ``None`` when the mapping is not one (the store accepts any
    JSON object as a warm record; such an entry is found by its text only)."""
    try:
        return FactRecord.from_json(record)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def stored_keys(record: Mapping[str, JSON]) -> tuple[int, ...] | None:
    """The fact key hashes of a stored record (``None`` when it is no fact record): what
    ``hot_doc`` keys an extraction by, read back from its packed JSON, and what ``warm_doc``
    keys a warm record by."""
    parsed = stored_record(record)
    return None if parsed is None else key_hashes(record_keys(parsed))


def hot_doc(
    schemas: SchemaResolver,
    entry_id: str,
    text: str,
    *,
    schema: str | None,
    agent_id: str,
    tags: Sequence[str],
    occurred_at: datetime | None,
) -> IndexDoc:
    """The index rows of a hot entry: its record extracted under the schema it resolves to."""
    resolved = schemas.for_indexing(schema, agent_id, tuple(tags))
    record = extract_source(text, resolved, reference_date(occurred_at, text))
    keys = key_hashes(record_keys(record))
    return IndexDoc(entry_id, index_text(text), keys, hot_record=pack_record(record))


def entry_hot_doc(schemas: SchemaResolver, entry: Entry, text: str) -> IndexDoc:
    """``hot_doc`` of a stored entry whose source is ``text``."""
    return hot_doc(
        schemas,
        entry.id,
        text,
        schema=entry.schema_name,
        agent_id=entry.agent_id,
        tags=entry.tags,
        occurred_at=entry.occurred_at,
    )


def hot_docs(
    schemas: SchemaResolver,
    ids: Sequence[str],
    items: Iterable[NewEntry],
    *,
    facts: bool = True,
) -> list[IndexDoc]:
    """The index rows of entries about to be added (``ids[i]`` is ``items[i]``'s id); without
    ``facts``, their text only, their facts left for ``index_pending``."""
    if not facts:
        return [
            IndexDoc(entry_id, index_text(item.content), (), facts_pending=True)
            for entry_id, item in zip(ids, items, strict=True)
        ]
    return [
        hot_doc(
            schemas,
            entry_id,
            item.content,
            schema=item.schema,
            agent_id=item.agent_id,
            tags=item.tags,
            occurred_at=item.occurred_at,
        )
        for entry_id, item in zip(ids, items, strict=True)
    ]


def warm_doc(
    schemas: SchemaLookup,
    entry_id: str,
    source: str,
    narrative: str,
    record: Mapping[str, JSON],
    narrative_facts: FactRecord | None = None,
    record_hash: str | None = None,
    parsed: FactRecord | None = None,
) -> IndexDoc:
    """The index rows of a warm entry: its record's facts, its hashes, its narrative's facts
    (read with the record's schema and reference date). ``narrative_facts``, the record
    verification extracted from the narrative, is used instead of extracting it again when
    it is exactly what the index would extract (see ``indexes_as``); ``record_hash``, the
    record's digest, and ``parsed``, the ``FactRecord`` whose JSON ``record`` is, when the
    caller has them already."""
    if parsed is None:
        parsed = stored_record(record)
    keys: tuple[int, ...] = ()
    narrative_keys: tuple[int, ...] = ()
    if parsed is not None:
        keys = key_hashes(record_keys(parsed))
        said = narrative_facts
        if said is None or not indexes_as(said, parsed, narrative):
            schema = schemas.get(parsed.schema.name, parsed.schema.version)
            said = INDEX_EXTRACTOR.extract(
                readable(narrative), schema or builtin_schema(GENERIC), parsed.reference
            )
        narrative_keys = key_hashes(record_keys(said))
    warm = WarmIndex(
        narrative_hash=text_digest(narrative),
        record_hash=record_digest(record) if record_hash is None else record_hash,
        narrative_keys=narrative_keys,
    )
    return IndexDoc(entry_id, index_text(source), keys, warm=warm)


def indexes_as(said: FactRecord, source: FactRecord, narrative: str) -> bool:
    """Whether ``said``, a record of ``narrative``, is the one the index would extract: made
    by the index's extractor under the source record's schema and reference date, from the
    whole narrative."""
    return (
        said.extractor == INDEX_EXTRACTOR.identity
        and said.schema == source.schema
        and said.reference == source.reference
        and len(narrative) <= MAX_TEXT_CHARS
    )
