"""The outcomes repository: a compression attempt's outcome applied to its entry.

``Outcomes`` runs over the store's ``Database``. Each outcome is one transaction whose first
statement is a fenced update: the entry must still be hot and active (or in review), with the
attempt count the caller read and, with ``lease_token``, the caller's unexpired lease; a
refused outcome writes nothing, so replays and concurrent workers never double-apply. The
attempt is written by ``Attempts``; the warm row's encoding (the agent's dictionary, the
identities' reference), the search index rows and the events by the store's other parts,
through the callables the facade passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from factdiff.errors import InputError
from factdiff.extraction.record import FactRecord
from factdiff.store import codec, warm_columns
from factdiff.store import rows as rowmap
from factdiff.store.attempts import Attempts
from factdiff.store.database import Database
from factdiff.store.indexing import IndexDoc, SchemaLookup
from factdiff.store.model import (
    AttemptOutcome,
    AttemptRecord,
    Entry,
    EntryNotFound,
    EntryStatus,
    NewEvent,
    Tombstone,
    WarmMeta,
)
from factdiff.store.warm_columns import Dictionary, WarmBody

__all__ = ["Outcomes"]

_DONE = frozenset({AttemptOutcome.CLEAN, AttemptOutcome.ACCEPTABLE_WITH_NOTES})

EventRows = list[tuple[str, str, bytes | None]]
"""Events as stored (type, payload, packed payload), made before the transaction."""
WarmIndexDoc = Callable[
    [str, str, str, Mapping[str, object], FactRecord | None, str | None, FactRecord | None],
    IndexDoc,
]
"""A demoted entry's index rows (entry id, source, narrative, record JSON, narrative facts,
record digest, parsed record)."""


class _StoredJson:
    """A record's stored JSON, made from a ``FactRecord`` on first use (a demotion whose warm
    row was made in a worker process never needs it)."""

    def __init__(self, record: Mapping[str, Any] | FactRecord) -> None:
        self._record = record
        self._json: Mapping[str, Any] | None = None if isinstance(record, FactRecord) else record

    def value(self) -> Mapping[str, Any]:
        if self._json is None:
            assert isinstance(self._record, FactRecord)
            self._json = self._record.to_json()
        return self._json


class Outcomes:
    """Compression outcomes of one store (see the module docstring).

    Besides the ``Database`` and the ``Attempts``: ``load`` (an entry with its content),
    ``tombstone`` (an erased entry's), ``event_rows`` and ``insert_events`` (events made
    before and written inside a transaction), ``agent_dictionary``, ``dictionary_hash`` and
    ``profile_ref`` (the warm row's encoding), ``schema_lookup``, ``warm_index_doc`` and
    ``index_demoted`` (its index rows, made before and written inside the transaction).
    """

    def __init__(
        self,
        db: Database,
        attempts: Attempts,
        *,
        load: Callable[[str], Entry | None],
        tombstone: Callable[[str], Tombstone | None],
        event_rows: Callable[[list[NewEvent]], EventRows],
        insert_events: Callable[[EventRows, str | None, str | None, int], None],
        agent_dictionary: Callable[[str, int], Dictionary],
        dictionary_hash: Callable[[int | None], bytes | None],
        profile_ref: Callable[[str], int],
        schema_lookup: Callable[[], SchemaLookup],
        warm_index_doc: WarmIndexDoc,
        index_demoted: Callable[[IndexDoc], None],
    ) -> None:
        self._db = db
        self._attempts = attempts
        self._load = load
        self._tombstone = tombstone
        self._event_rows = event_rows
        self._insert_events = insert_events
        self._agent_dictionary = agent_dictionary
        self._dictionary_hash = dictionary_hash
        self._profile_ref = profile_ref
        self._schema_lookup = schema_lookup
        self._warm_index_doc = warm_index_doc
        self._index_demoted = index_demoted

    def apply_compressed(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        narrative: str,
        record: Mapping[str, Any] | FactRecord,
        meta: WarmMeta,
        attempt: AttemptRecord,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
        expected_errors: int | None = None,
        keep_attempts: bool = True,
        narrative_facts: FactRecord | None = None,
        from_review: bool = False,
        body: WarmBody | None = None,
    ) -> bool:
        """Demote a hot entry to warm in one transaction; ``False`` (no change) if stale.

        ``from_review``: the entry is in review and an operator approved or edited its
        summary; it must still be in review, and leaves it (status active, tier warm).

        Stale means the entry is no longer hot and active (or was erased), its attempt count
        differs from
        ``expected_attempts`` (another run already applied an outcome) or, when given, its
        error attempt count from ``expected_errors``, or the lease is lost: with
        ``lease_token`` the entry must still hold that unexpired lease (database clock);
        without, it must hold no live lease at all. The first statement is that fenced
        update, so a refused outcome writes nothing. Otherwise: the attempt is recorded (as
        the entry's next attempt row, with its model calls), the warm row written with the
        source archived to cold in its last columns (verified against its hash before
        commit), the hot content removed,
        the tier set to warm, the error streak and the lease cleared, and ``events`` appended.
        Without ``keep_attempts`` (attempt retention ``warm-clean``) the entry keeps no
        attempt row: this attempt is not written and earlier ones are deleted (its model
        calls and events stay).

        ``record``: the source's fact record, as its stored JSON or as the ``FactRecord``
        (whose JSON is then made only if the warm row is made here). The meta's
        ``source_facts_digest`` is that record's digest: ``None`` has it filled in, another
        digest is refused.

        ``body``: the warm row's columns but its meta, made ahead from this ``narrative``
        and ``record`` by ``warm_columns.encode_body`` (in a worker process); used when it
        still fits the entry (its source and the agent's latest dictionary), else made here.
        """
        if not narrative.strip():
            raise InputError(f"entry {entry_id}: refusing to write an empty warm narrative")
        if AttemptOutcome(attempt.outcome) not in _DONE:
            raise InputError(
                f"apply_compressed needs a clean or acceptable attempt, not {attempt.outcome}"
            )
        now_us = codec.to_micros(now, "now")
        narrative_text = codec.check_text(narrative, "narrative")
        attempt_rows = self._attempts.params(entry_id, attempt, now_us, narrative_text)
        event_rows = self._event_rows(events)
        state = self._load(entry_id)
        if state is None and self._tombstone(entry_id) is not None:
            return False  # erased meanwhile: the outcome is stale
        if state is None:
            raise EntryNotFound(entry_id)
        wanted = EntryStatus.REVIEW if from_review else EntryStatus.ACTIVE
        current = rowmap.is_current(replace(state, status=EntryStatus.ACTIVE), expected_attempts)
        if not current or state.status is not wanted or state.content is None:
            return False
        parsed = record if isinstance(record, FactRecord) else None
        record_json = _StoredJson(record)
        dictionary = self._agent_dictionary(state.agent_id, now_us)
        latest = (dictionary[0], self._dictionary_hash(dictionary[0]))
        if body is None or not body.fits(narrative_text, state.content_hash, *latest):
            body = warm_columns.encode_body(
                entry_id,
                state.content,
                state.content_hash,
                narrative_text,
                record_json.value(),
                dictionary,
                self._schema_lookup(),
                narrative_facts,
                parsed,
            )
        if meta.source_facts_digest is None:
            meta = replace(meta, source_facts_digest=body.record_digest)
        elif meta.source_facts_digest != body.record_digest:
            raise InputError(
                f"entry {entry_id}: the compression meta names another fact record than the "
                "one written with it (source_facts_digest differs)"
            )
        meta_columns = warm_columns.encode_meta(
            entry_id, meta, state.content_hash, now_us, body.record_digest
        )
        warm = {
            "id": entry_id,
            "now": now_us,
            **body.params(meta_columns),
            "identity_ref": self._profile_ref(meta_columns.profile),
        }
        index = body.index or self._warm_index_doc(
            entry_id,
            state.content,
            narrative,
            record_json.value(),
            narrative_facts,
            body.record_digest,
            parsed,
        )

        def work() -> bool:
            fenced = self._db.exec(
                "set_warm_reviewed" if from_review else "set_warm",
                id=entry_id,
                expected=expected_attempts,
                expected_errors=expected_errors,
                token=lease_token,
            ).fetchone()
            if fenced is None:
                return False
            attempt_no = int(fenced["attempt_no"])
            self._attempts.insert(attempt_no, *attempt_rows)
            if not keep_attempts:
                self._db.exec("delete_entry_attempts", id=entry_id)
            self._db.exec("insert_warm", **warm, attempt_no=attempt_no)
            self._db.exec("delete_hot", id=entry_id)
            self._index_demoted(index)
            self._insert_events(event_rows, entry_id, state.agent_id, now_us)
            return True

        return self._db.write(work)

    def apply_failed(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
        expected_errors: int | None = None,
    ) -> bool:
        """Record a failed (or refused) attempt in one transaction; ``False`` if stale.

        The attempt counts toward the ladder and ``max_attempts``. Stale as for
        ``apply_compressed`` (attempt counts, tier, status, lease). The entry stays hot with
        its content; ``next_attempt_at`` is its backoff (``None``: due again at once);
        ``escalate`` sets its status to ``review`` so that demotion skips it until
        ``resolve_review``. The error streak and the lease are cleared.
        """
        if AttemptOutcome(attempt.outcome) in _DONE:
            raise InputError(f"apply_failed needs a failed or error attempt, not {attempt.outcome}")
        return self._apply_kept_hot(
            "set_failed",
            entry_id,
            expected_attempts,
            expected_errors,
            attempt,
            next_attempt_at,
            escalate,
            events,
            now,
            lease_token,
        )

    def apply_error(
        self,
        entry_id: str,
        *,
        expected_attempts: int,
        expected_errors: int,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None = None,
    ) -> bool:
        """Record an attempt that verified nothing (a provider, model output or internal
        error) in one transaction; ``False`` if stale (as for ``apply_failed``).

        It does not count toward the ladder or ``max_attempts``: the entry's error attempt
        count and error streak grow instead, ``next_attempt_at`` is the error backoff, and
        ``escalate`` (the error budget is spent) sends it to review. The lease is cleared.
        """
        if AttemptOutcome(attempt.outcome) is not AttemptOutcome.ERROR:
            raise InputError(f"apply_error needs an error attempt, not {attempt.outcome}")
        return self._apply_kept_hot(
            "set_errored",
            entry_id,
            expected_attempts,
            expected_errors,
            attempt,
            next_attempt_at,
            escalate,
            events,
            now,
            lease_token,
        )

    def _apply_kept_hot(
        self,
        statement: str,
        entry_id: str,
        expected_attempts: int,
        expected_errors: int | None,
        attempt: AttemptRecord,
        next_attempt_at: datetime | None,
        escalate: bool,
        events: list[NewEvent],
        now: datetime,
        lease_token: str | None,
    ) -> bool:
        now_us = codec.to_micros(now, "now")
        attempt_rows = self._attempts.params(entry_id, attempt, now_us)
        next_us = codec.opt_micros(next_attempt_at, "next_attempt_at")
        event_rows = self._event_rows(events)

        def work() -> bool:
            row = self._db.row("select_entry", id=entry_id)
            if row is None and self._tombstone(entry_id) is not None:
                return False  # erased meanwhile: the outcome is stale
            if row is None:
                raise EntryNotFound(entry_id)
            fenced = self._db.exec(
                statement,
                id=entry_id,
                expected=expected_attempts,
                expected_errors=expected_errors,
                next_attempt_at=next_us,
                escalate=bool(escalate),
                token=lease_token,
            ).fetchone()
            if fenced is None:
                return False
            self._attempts.insert(int(fenced["attempt_no"]), *attempt_rows)
            self._insert_events(event_rows, entry_id, str(row["agent_id"]), now_us)
            return True

        return self._db.write(work)
