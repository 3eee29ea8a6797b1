"""What the search indexes hold for one entry: its source text and its fact keys.

* **Text**: the entry's full source, hot or archived. A warm narrative is about a third of its
  source; keeping the archived source's words indexed means demotion never makes an entry
  harder to find. A hit that matched only words or facts the narrative no longer states is
  marked (``where: "archive"``) and comes back with its source attached (see
  ``factdiff.retrieve.search``).
* **Facts**: the canonical keys (``factdiff.retrieve.keys``) of the entry's fact record. A hot
  entry's record is the rules extraction of its source under its schema (the extraction
  demotion makes, run when the entry is added); a warm entry's is the source record stored
  with it at compression.

The facts of a text longer than the rules extractor reads (``MAX_TEXT_CHARS``, 2,000,000
characters) are indexed from its first ``MAX_TEXT_CHARS`` characters (cut at a line end);
the rest of such an entry is found by its words. (Such entries are never compressed either:
demotion refuses sources over 1 MB.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from factdiff.extract.rules import MAX_TEXT_CHARS, RulesExtractor, infer_reference
from factdiff.record import FactRecord
from factdiff.retrieve.keys import key_hashes, record_keys
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.schema.model import FactSchema

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore
    from factdiff.store.model import Entry, NewEntry

INDEX_EXTRACTOR = RulesExtractor()
"""The extractor of hot entries' records, and of queries."""


@dataclass(frozen=True)
class IndexDoc:
    """One entry's row in the search indexes."""

    entry_id: str
    text: str
    """The full source (NUL characters as spaces: PostgreSQL text cannot hold them)."""
    key_hashes: tuple[int, ...]


def reference_date(occurred_at: datetime | None, text: str) -> date | None:
    """The date relative dates resolve against: the entry's own local date, else the first
    full date its text states (as demotion does)."""
    if occurred_at is not None:
        return occurred_at.date()
    return infer_reference(readable(text))


def extract_source(text: str, schema: FactSchema, reference: date | None) -> FactRecord:
    """The rules record of ``text`` (of its first ``MAX_TEXT_CHARS`` when longer)."""
    return INDEX_EXTRACTOR.extract(readable(text), schema, reference)


def source_keys(text: str, schema: FactSchema, reference: date | None) -> tuple[int, ...]:
    """The fact key hashes of a source text."""
    return key_hashes(record_keys(extract_source(text, schema, reference)))


def stored_record(record: Mapping[str, Any]) -> FactRecord | None:
    """A stored fact record, or ``None`` when the mapping is not one (the store accepts any
    JSON object as a warm record; such an entry is found by its text only)."""
    try:
        return FactRecord.from_json(record)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def record_key_hashes(record: Mapping[str, Any]) -> tuple[int, ...]:
    """The fact key hashes of a stored fact record (a warm entry's source record)."""
    parsed = stored_record(record)
    return () if parsed is None else key_hashes(record_keys(parsed))


def index_text(text: str) -> str:
    """The text as the text index takes it."""
    return text.replace("\0", " ")


def hot_docs(store: MemoryStore, ids: Sequence[str], items: Iterable[NewEntry]) -> list[IndexDoc]:
    """The index rows of entries about to be added (``ids[i]`` is ``items[i]``'s id)."""
    schemas = SchemaResolver(store)
    docs = []
    for entry_id, item in zip(ids, items, strict=True):
        schema = schemas.for_indexing(item.schema, item.agent_id, tuple(item.tags))
        reference = reference_date(item.occurred_at, item.content)
        keys = source_keys(item.content, schema, reference)
        docs.append(IndexDoc(entry_id, index_text(item.content), keys))
    return docs


def entry_source_keys(store: MemoryStore, entry: Entry, text: str) -> tuple[int, ...]:
    """The fact key hashes of a stored entry's source, under the schema it resolves to."""
    schema = SchemaResolver(store).for_indexing(entry.schema_name, entry.agent_id, entry.tags)
    return source_keys(text, schema, reference_date(entry.occurred_at, text))


def readable(text: str) -> str:
    """``text``, or its first ``MAX_TEXT_CHARS`` characters cut after a line end."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_TEXT_CHARS)
    return text[: cut + 1] if cut > 0 else text[:MAX_TEXT_CHARS]
