"""``render_context``: exactly what an agent is shown of some entries, with its hash.

Each entry renders as one block of plain text, in the order given::

    ## entry 01JQ... (agent support-bot, tier warm)
    occurred_at: 2026-03-14T14:32:00-05:00
    schema: customer_service v1
    narrative:
    <the warm narrative, or the hot source, byte for byte>
    facts:
    - invoice_id: INV-9182 (stated as "INV-9182")
    - inventory.money: 14250 USD (stated as "$14,250")
    known gaps:
    - call_time (important, datetime)
    check: acceptable_with_notes: 14 facts kept; 1 sentence not covered by the schema was dropped
    - "The customer sounded upset about the delay."

A warm entry shows its narrative, a hot one its source (``source:`` instead of
``narrative:``); the facts are the entry's record (a warm entry's source record, so the
values of its known gaps are listed too), field by field in record order, each value as its
canonical JSON when it is not a string. Blocks are joined by a blank line. Nothing depends
on the clock, the time zone or the locale: the same store renders the same bytes. The
``check:`` line (the outcome of the check that made a warm entry, the facts it kept, the
source sentences no schema field covered that the narrative dropped, each quoted below it)
is there only for entries whose check was recorded: older warm rows and hot entries render
as they always did.

The context's hash is ``sha256:`` + the hex SHA-256 of the rendered UTF-8 bytes; each block
has its own hash too, so a check names the entry that changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.extraction.record import FactRecord
from factdiff.retrieve.gaps import KnownGap, known_gaps
from factdiff.retrieve.index import extract_source, reference_date, stored_record, unpack_json
from factdiff.retrieve.keys import record_facts
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.schema.model import FactSchema, SchemaRef
from factdiff.store.coverage_meta import CheckCoverage
from factdiff.store.model import Entry, Tier

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore
    from factdiff.values.base import JSON


@dataclass(frozen=True)
class EntryView:
    """What an agent reads of one entry: its text, its fact record and its known gaps.

    The record is kept as stored (JSON) and parsed on first use of ``record``, so a search
    parses only the facts it compares (``typed_facts``).
    """

    entry: Entry
    text: str
    """The narrative of a warm entry, the source of a hot one."""
    record_json: Mapping[str, JSON] | None
    gaps: tuple[KnownGap, ...]
    schema: FactSchema | None = None
    """The schema the record was made with, when the store still has it."""

    @cached_property
    def record(self) -> FactRecord | None:
        """The entry's fact record (None when what is stored is not one)."""
        return None if self.record_json is None else stored_record(self.record_json)

    @property
    def coverage(self) -> CheckCoverage | None:
        """The coverage of the check that made a warm entry (``None``: hot, or not kept)."""
        return None if self.entry.warm is None else self.entry.warm.meta.coverage

    @property
    def schema_name(self) -> str | None:
        """The record's schema name."""
        ref = record_schema(self.record_json)
        return None if ref is None else ref.name

    @property
    def schema_version(self) -> int | None:
        """The record's schema version."""
        ref = record_schema(self.record_json)
        return None if ref is None else ref.version


@dataclass(frozen=True)
class RenderedEntry:
    """One entry's block of a rendered context."""

    entry_id: str
    tier: str
    schema_name: str | None
    schema_version: int | None
    source_hash: str
    """The content hash of the entry's source (hot, or archived cold)."""
    text: str
    hash: str

    def to_json(self) -> dict[str, JSON]:
        """``{"entry_id", "tier", "schema", "source_hash", "hash"}``."""
        return {
            "entry_id": self.entry_id,
            "tier": self.tier,
            "schema": {"name": self.schema_name, "version": self.schema_version},
            "source_hash": self.source_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class RenderedContext:
    """The rendered text of some entries and its hash (``sha256:...``)."""

    entries: tuple[RenderedEntry, ...]
    text: str
    hash: str

    def to_json(self) -> dict[str, JSON]:
        """``{"hash", "entries", "text"}``."""
        return {
            "hash": self.hash,
            "entries": [e.to_json() for e in self.entries],
            "text": self.text,
        }


def text_hash(text: str) -> str:
    """``sha256:<hex>`` of the UTF-8 bytes of ``text``."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def entry_view(store: MemoryStore, entry: Entry, schemas: SchemaResolver) -> EntryView:
    """An entry as an agent reads it (``entry`` loaded with its content or warm view): a warm
    entry's narrative, source record and known gaps; a hot entry's source and the record
    stored when it was added (extracted now if the store has none)."""
    packed = None if entry.warm is not None else store.search_queries.hot_record(entry.id)
    return view_of(entry, packed, schemas)


def view_of(entry: Entry, packed: bytes | None, schemas: SchemaResolver) -> EntryView:
    """``entry_view`` of an entry whose packed hot record (if any) was read already."""
    if entry.warm is not None:
        data = entry.warm.record
        ref = record_schema(data)
        schema = None if ref is None else schemas.get(ref.name, ref.version)
        gaps = known_gaps(entry.warm.meta, schema)
        return EntryView(entry, entry.warm.narrative, data, gaps, schema)
    text = entry.content or ""
    if packed is not None:
        data = unpack_json(packed)
        ref = record_schema(data)
        schema = None if ref is None else schemas.get(ref.name, ref.version)
        return EntryView(entry, text, data, (), schema)
    schema = schemas.for_indexing(entry.schema_name, entry.agent_id, entry.tags)
    hot = extract_source(text, schema, reference_date(entry.occurred_at, text))
    return EntryView(entry, text, hot.to_json(), (), schema)


def record_schema(data: Mapping[str, JSON] | None) -> SchemaRef | None:
    """The schema reference of a stored record (None when it has none)."""
    try:
        ref = None if data is None else data["schema"]
        return SchemaRef.from_json(ref) if isinstance(ref, Mapping) else None
    except (KeyError, TypeError, ValueError):
        return None


def render_entry(view: EntryView) -> RenderedEntry:
    """One entry's block (see the module docstring)."""
    entry = view.entry
    lines = [
        f"## entry {entry.id} (agent {entry.agent_id}, tier {entry.tier.value})",
        f"occurred_at: {entry.occurred_at.isoformat() if entry.occurred_at else '-'}",
        f"schema: {view.schema_name or '-'} v{view.schema_version or '-'}",
        "narrative:" if entry.tier is Tier.WARM else "source:",
        view.text,
        "facts:",
    ]
    facts = list(record_facts(view.record)) if view.record is not None else []
    lines.extend(
        f"- {name}: {_value(fact.value.canonical())} (stated as {_quoted(fact.text)})"
        for name, fact in facts
    )
    if not facts:
        lines.append("- none")
    lines.append("known gaps:")
    lines.extend(
        f"- {gap.field} ({_or_dash(gap.criticality)}, {_or_dash(gap.fact_type)})"
        for gap in view.gaps
    )
    if not view.gaps:
        lines.append("- none")
    lines.extend(_check_lines(view))
    text = "\n".join(lines) + "\n"
    return RenderedEntry(
        entry.id,
        entry.tier.value,
        view.schema_name,
        view.schema_version,
        entry.content_hash,
        text,
        text_hash(text),
    )


def _check_lines(view: EntryView) -> list[str]:
    """``check: clean: 14 facts kept; 1 sentence not covered by the schema was dropped`` and
    the dropped sentences, quoted; nothing for an entry without a recorded check."""
    covered, warm = view.coverage, view.entry.warm
    if covered is None or warm is None:
        return []
    kept = covered.facts_kept
    line = f"check: {warm.meta.outcome.value}: {kept} {'fact' if kept == 1 else 'facts'} kept"
    phrase = covered.phrase()
    return [f"{line}; {phrase}" if phrase else line, *(f"- {_quoted(t)}" for t in covered.texts)]


def assemble(blocks: Sequence[RenderedEntry]) -> RenderedContext:
    """The context of rendered blocks, in order."""
    text = "\n".join(block.text for block in blocks)
    return RenderedContext(tuple(blocks), text, text_hash(text))


def render_context(store: MemoryStore, entry_ids: Sequence[str]) -> RenderedContext:
    """Render ``entry_ids`` in the order given (an unknown id is ``EntryNotFound``)."""
    ids = check_ids(entry_ids)
    schemas = SchemaResolver(store)
    return assemble([render_entry(entry_view(store, store.get(i), schemas)) for i in ids])


def check_ids(entry_ids: Sequence[str]) -> list[str]:
    """The ids as given: at least one, none twice."""
    ids = [str(i) for i in entry_ids]
    if not ids:
        raise InputError("give at least one entry id")
    seen: set[str] = set()
    for entry_id in ids:
        if entry_id in seen:
            raise InputError(f"entry {entry_id} is given twice: give each entry once")
        seen.add(entry_id)
    return ids


def _value(canonical: object) -> str:
    if isinstance(canonical, str):
        return canonical
    return json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)
