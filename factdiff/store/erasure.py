"""Erasure: remove an entry's content from every place the store keeps it.

``Erasure`` is a repository over the store's ``Database`` (``MemoryStore`` forwards
``forget``, ``forget_agent`` and ``tombstone``). ``Erasure.forget(ids, now=..., reason=...)``
erases each entry in one write transaction of its own, running ``STEPS`` in order. Each step
is one place content lives; a table added later that holds an entry's content adds one step
here (and the every-table erasure test finds the table on its own, from the database
catalog, if it is forgotten). Redaction itself is ``factdiff.store.redaction``.

What is left of an entry is its tombstone (id, agent, tier, when, reason, content hash) and an
``erased`` event that carries no content. Its events and attempts keep their structure with
their values redacted (``REDACTED``): events stay append-only but for this one audited
exception, a payload redaction while the erasing transaction holds the entry in
``erasure_pending`` (see migration 0010). Model call rows (tokens, cost, no text) stay, so are
attestations (hashes only): ``check_attestation`` reports the entry as erased.

Erasing an entry already erased returns its tombstone (``newly_erased`` false); an unknown id
is ``EntryNotFound`` and nothing is erased. Space freed by the erasure is overwritten on
SQLite (``secure_delete``); ``MemoryStore.vacuum`` rewrites the file (or, on PostgreSQL, the
tables) so that no earlier copy remains in free pages or dead tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from factdiff.errors import InputError
from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.compact_storage import CompactStorage
from factdiff.store.database import Database
from factdiff.store.event_log import EventLog
from factdiff.store.model import (
    EntryNotFound,
    EventType,
    NewEvent,
    Tier,
    Tombstone,
)
from factdiff.store.redaction import KEPT_KEYS, REDACTED, redact, redact_json, redacted_payload
from factdiff.store.reencoding import Reencoding

if TYPE_CHECKING:
    from factdiff.store.model import Entry

__all__ = [
    "KEPT_KEYS",
    "REDACTED",
    "STEPS",
    "Erasure",
    "ErasureStep",
    "ErasureTally",
    "ErasureTarget",
    "Forgotten",
    "erase_from_trained_dictionaries",
    "redact",
    "redact_json",
    "redacted_payload",
]

AGENT_PAGE = 256


@dataclass(frozen=True)
class ErasureTarget:
    """The entry being erased, read inside the erasing transaction."""

    entry: Entry
    source: str
    """Its full source text (hot, or from the cold archive, hash-checked)."""
    doc: int | None
    """Its number in the search indexes."""
    reason: str
    erased_at: int
    """Microseconds since the epoch."""


@dataclass
class ErasureTally:
    """What the steps redacted."""

    events: int = 0
    attempts: int = 0


StepRun = Callable[["Erasure", ErasureTarget, ErasureTally], None]


@dataclass(frozen=True)
class ErasureStep:
    """One place an entry's content lives, and how it leaves."""

    name: str
    place: str
    run: StepRun


@dataclass(frozen=True)
class Forgotten:
    """The result of erasing one entry."""

    tombstone: Tombstone
    newly_erased: bool
    """False when the entry had been erased before (``forget`` is idempotent)."""
    redacted_events: int = 0
    redacted_attempts: int = 0
    steps: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The tombstone's keys, ``newly_erased``, ``redacted_events``, ``redacted_attempts``."""
        return {
            **self.tombstone.to_json(),
            "newly_erased": self.newly_erased,
            "redacted_events": self.redacted_events,
            "redacted_attempts": self.redacted_attempts,
        }


# -- the steps -----------------------------------------------------------------------------


def _exec_if(eraser: Erasure, key: str, **params: Any) -> None:
    """Run ``key`` unless the dialect needs no statement for it."""
    if eraser.db.sql(key):
        eraser.db.exec(key, **params)


def _guard_open(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    eraser.db.exec("erase_guard_open", entry_id=target.entry.id)


def _unpacked_attempt(diff: Any, summary: Any, packed: Any) -> tuple[str, str]:
    """An attempt row's diff and summary as JSON text, read from its packed column when it
    has one (a summary left out there is the warm narrative: it is redacted all the same)."""
    if packed is None:
        return str(diff), str(summary)
    try:
        found_diff, found_summary = rowmap.unpack_attempt(packed)
    except ValueError:
        return codec.dump_json(REDACTED, "redaction"), codec.dump_json(REDACTED, "redaction")
    return (
        codec.dump_json(found_diff, "attempt diff"),
        codec.dump_json(REDACTED if found_summary is None else found_summary, "summary"),
    )


def _attempts(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    rows = eraser.db.rows(eraser.db.sql("erase_attempt_rows"), {"entry_id": target.entry.id})
    for attempt_id, diff_text, summary_text, error, must_keep, packed in rows:
        diff, summary = _unpacked_attempt(diff_text, summary_text, packed)
        eraser.db.exec(
            "erase_redact_attempt",
            id=attempt_id,
            diff=redact_json(diff),
            summary=redact_json(summary),
            error=redact_json(None if error is None else str(error)),
            must_keep=redact_json(None if must_keep is None else str(must_keep)),
        )
        tally.attempts += 1


def _events(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    rows = eraser.db.rows(eraser.db.sql("erase_event_rows"), {"entry_id": target.entry.id})
    for event_id, payload, packed, then_type, then_payload, then_packed in rows:
        second = None if then_type is None else redacted_payload(str(then_payload), then_packed)
        eraser.db.exec(
            "erase_redact_event",
            id=event_id,
            payload=redacted_payload(str(payload), packed),
            then_payload=second,
        )
        tally.events += 1 if second is None else 2


def _extraction_cache(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    eraser.db.exec("erase_extraction_cache", content_hash=target.entry.content_hash)


def _search_text(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    from factdiff.store.indexing import index_text

    if target.doc is None:
        return
    _exec_if(eraser, "erase_search_text", doc=target.doc, text=index_text(target.source))
    _exec_if(eraser, "erase_search_text_merge")


def _fact_index(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    if target.doc is not None:
        eraser.db.exec("delete_fact_keys", doc=target.doc)


def _search_docs(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    if target.doc is not None:
        eraser.db.exec("erase_search_doc", doc=target.doc)


def _by_entry(key: str) -> StepRun:
    def run(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
        eraser.db.exec(key, entry_id=target.entry.id)

    return run


def _by_id(key: str) -> StepRun:
    def run(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
        eraser.db.exec(key, id=target.entry.id)

    return run


def erase_from_trained_dictionaries(
    eraser: Erasure, target: ErasureTarget, tally: ErasureTally
) -> None:
    """Zstd dictionaries trained on ``target``'s text (they hold fragments of it): every
    archive, warm record and narrative made with one is re-encoded with a dictionary of the
    agent trained without the entry (or as a plain frame), then the dictionary rows are
    deleted (``retire_dictionaries_trained_on``), inside the erasing transaction."""
    with eraser.db.joined_writes():
        eraser.reencoding.retire_dictionaries_trained_on(
            target.entry.id, now=codec.from_micros(target.erased_at)
        )


def _entry(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    entry = target.entry
    eraser.db.exec("erase_entry", id=entry.id)
    eraser.db.exec(
        "insert_tombstone",
        entry_id=entry.id,
        agent_id=entry.agent_id,
        tier=entry.tier.value,
        erased_at=target.erased_at,
        reason=target.reason,
        content_hash=entry.content_hash,
    )


def _erased_event(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    entry = target.entry
    payload = {
        "content_hash": entry.content_hash,
        "size_bytes": entry.size_bytes,
        "tier": entry.tier.value,
        "reason": target.reason,
        "redacted_events": tally.events,
        "redacted_attempts": tally.attempts,
    }
    event = NewEvent(EventType.ERASED, payload)
    eraser.events.append([event], entry.id, entry.agent_id, target.erased_at)


def _guard_close(eraser: Erasure, target: ErasureTarget, tally: ErasureTally) -> None:
    eraser.db.exec("erase_guard_close", entry_id=target.entry.id)


STEPS: tuple[ErasureStep, ...] = (
    ErasureStep(
        "guard_open", "erasure_pending: opens the redaction of this entry's events", _guard_open
    ),
    ErasureStep("attempts", "attempts: summaries, diffs, errors, must-keep facts", _attempts),
    ErasureStep("events", "events: payloads (summaries, facts, diffs)", _events),
    ErasureStep(
        "extraction_cache", "extraction_cache: the source's fact records", _extraction_cache
    ),
    ErasureStep("search_text", "text index: FTS5 rows (SQLite)", _search_text),
    ErasureStep("fact_index", "fact_index: fact key hashes", _fact_index),
    ErasureStep("search_docs", "search_docs (and its tsvector on PostgreSQL)", _search_docs),
    ErasureStep(
        "hot_records", "hot_records: the packed fact record", _by_entry("delete_hot_record")
    ),
    ErasureStep("fact_pending", "fact_pending", _by_entry("delete_fact_pending")),
    ErasureStep(
        "warm_index", "warm_index: hashes and narrative keys", _by_entry("delete_warm_index")
    ),
    ErasureStep("source_fetches", "source_fetches", _by_entry("delete_source_fetches")),
    ErasureStep(
        "kept_hot", "kept_hot: an operator's keep-hot decision", _by_entry("erase_kept_hot")
    ),
    ErasureStep(
        "reevaluations",
        "reevaluations: re-evaluation work items and their diffs",
        _by_entry("erase_reevaluations"),
    ),
    ErasureStep(
        "trained_dictionaries",
        "compression dictionaries trained on the entry's text",
        erase_from_trained_dictionaries,
    ),
    ErasureStep("hot_content", "hot_content: the hot source", _by_id("delete_hot")),
    ErasureStep(
        "warm_entries",
        "warm_entries: narrative, fact record, meta and the archived source (cold tier)",
        _by_id("delete_warm"),
    ),
    ErasureStep("entry", "entries: metadata and tags; the tombstone takes its place", _entry),
    ErasureStep("erased_event", "events: the erased event (no content)", _erased_event),
    ErasureStep("guard_close", "erasure_pending: closes the redaction path", _guard_close),
)
"""Every place an entry's content lives, in the order the erasing transaction clears them."""


# -- running -------------------------------------------------------------------------------


class Erasure:
    """Erasure of one store's entries (see the module docstring): over ``db``, appending to
    ``events``, reading warm archives and dropping loaded dictionaries through ``compact``,
    retiring the dictionaries trained on an entry through ``reencoding``."""

    def __init__(
        self, db: Database, events: EventLog, compact: CompactStorage, reencoding: Reencoding
    ) -> None:
        self.db = db
        self.events = events
        self.compact = compact
        self.reencoding = reencoding

    def tombstone(self, entry_id: str) -> Tombstone | None:
        """The tombstone of an erased entry (None if ``entry_id`` was not erased)."""
        row = self.db.row("select_tombstone", entry_id=entry_id)
        if row is None:
            return None
        return Tombstone(
            entry_id=str(row["entry_id"]),
            agent_id=str(row["agent_id"]),
            tier=str(row["tier"]),
            erased_at=codec.from_micros(int(row["erased_at"])),
            reason=str(row["reason"]),
            content_hash=str(row["content_hash"]),
        )

    def forget(
        self,
        entry_ids: Iterable[str],
        *,
        now: datetime,
        reason: str = "",
        owner: str | None = None,
        on_step: Callable[[str], None] | None = None,
    ) -> list[Forgotten]:
        """Erase these entries' content from every place the store keeps it, one transaction
        per entry, leaving tombstones and ``erased`` events (see ``factdiff.store.erasure``).
        Idempotent; an unknown id (or, with ``owner``, another agent's: an agent's key erases
        its own entries only) raises ``EntryNotFound`` before anything is erased."""
        ids = list(dict.fromkeys(entry_ids))
        if not ids:
            raise InputError("name the entries to forget (ids, or an agent)")
        for entry_id in ids:
            row = self.db.row("select_entry", id=entry_id)
            stone = self.tombstone(entry_id) if row is None else None
            agent = (
                str(row["agent_id"])
                if row is not None
                else None
                if stone is None
                else stone.agent_id
            )
            if agent is None or (owner is not None and agent != owner):
                raise EntryNotFound(entry_id)
        return [self.erase_entry(i, now=now, reason=reason, on_step=on_step) for i in ids]

    def forget_agent(
        self,
        agent: str,
        *,
        now: datetime,
        reason: str = "",
        on_step: Callable[[str], None] | None = None,
    ) -> list[Forgotten]:
        """Erase every entry of ``agent`` (as ``forget``, one transaction each);
        ``InputError`` when the agent has neither entries nor tombstones (a mistyped id)."""
        if not agent.strip():
            raise InputError("agent id must not be empty")
        ids = self.agent_entry_ids(agent)
        if not ids and self.db.one("count_agent_tombstones", agent=agent) == 0:
            raise InputError(f"agent {agent!r} has no entries: check the id with `factdiff list`")
        if ids:  # once for the agent, not once per entry (each would retrain and re-encode)
            self.reencoding.retire_agent_dictionaries(agent, now=now)
        return [self.erase_entry(i, now=now, reason=reason, on_step=on_step) for i in ids]

    def agent_entry_ids(self, agent: str) -> list[str]:
        """The ids of every entry ``agent`` has (erased ones excluded)."""
        found: list[str] = []
        sql, after = self.db.sql("agent_entry_ids"), ""
        while True:
            rows = self.db.rows(sql, {"agent": agent, "after": after, "limit": AGENT_PAGE})
            found.extend(str(r[0]) for r in rows)
            if len(rows) < AGENT_PAGE:
                return found
            after = found[-1]

    def erase_entry(
        self,
        entry_id: str,
        *,
        now: datetime,
        reason: str = "",
        on_step: Callable[[str], None] | None = None,
    ) -> Forgotten:
        """Erase one entry in one transaction (see the module); ``on_step`` is called with
        each step's name before it runs."""
        erased_at = codec.to_micros(now, "now")
        why = codec.check_text(reason, "reason")

        def work() -> Forgotten:
            row = self.db.row("select_entry", id=entry_id)
            if row is None:
                stone = self.tombstone(entry_id)
                if stone is None:
                    raise EntryNotFound(entry_id)
                return Forgotten(stone, newly_erased=False)
            entry = rowmap.entry(row)
            doc = self.db.one("select_search_doc", entry_id=entry_id)
            target = ErasureTarget(
                entry, self._source(entry), None if doc is None else int(doc), why, erased_at
            )
            tally = ErasureTally()
            for step in STEPS:
                if on_step is not None:
                    on_step(step.name)
                step.run(self, target, tally)
            stone = Tombstone(
                entry.id,
                entry.agent_id,
                entry.tier.value,
                codec.from_micros(erased_at),
                why,
                entry.content_hash,
            )
            names = tuple(step.name for step in STEPS)
            return Forgotten(stone, True, tally.events, tally.attempts, names)

        if self.db.sql("erase_secure_delete"):
            self.db.exec("erase_secure_delete")
        try:
            return self.db.write(work)
        except BaseException:
            # dictionaries loaded or retired inside a rolled-back erasure may not exist as cached
            self.compact.dictionaries.clear()
            raise

    def _source(self, entry: Entry) -> str:
        if entry.tier is Tier.HOT:
            data = self.db.one("select_hot", id=entry.id)
            return "" if data is None else codec.decode_content(bytes(data))
        cold = self.db.row("select_cold", id=entry.id)
        if cold is None:
            return ""
        return codec.decode_content(self.compact.cold_bytes(entry.id, cold))
