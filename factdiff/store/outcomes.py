"""Compression outcomes of ``MemoryStore`` and the attempt history they leave.

Each outcome is one transaction whose first statement is a fenced update: the entry must
still be hot and active (or in review), with the attempt count the caller read and, with
``lease_token``, the caller's unexpired lease; a refused outcome writes nothing, so replays
and concurrent workers never double-apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from factdiff.errors import InputError
from factdiff.extraction.record import FactRecord
from factdiff.providers.accounting import ModelCall
from factdiff.store import codec, erasure, schema_refs, search_index, warm_columns
from factdiff.store import rows as rowmap
from factdiff.store.model import (
    AttemptOutcome,
    AttemptRecord,
    EntryNotFound,
    EntryStatus,
    NewEvent,
    WarmMeta,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore
    from factdiff.store.warm_columns import WarmBody

_DONE = frozenset({AttemptOutcome.CLEAN, AttemptOutcome.ACCEPTABLE_WITH_NOTES})


def _store(mixin: OutcomesMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


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


class OutcomesMixin:
    """Compression outcomes and attempt history of ``MemoryStore`` (see the module docstring)."""

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
        store = _store(self)
        if not narrative.strip():
            raise InputError(f"entry {entry_id}: refusing to write an empty warm narrative")
        if AttemptOutcome(attempt.outcome) not in _DONE:
            raise InputError(
                f"apply_compressed needs a clean or acceptable attempt, not {attempt.outcome}"
            )
        now_us = codec.to_micros(now, "now")
        narrative_text = codec.check_text(narrative, "narrative")
        attempt_rows = store._attempt_rows(entry_id, attempt, now_us, narrative_text)
        event_rows = store._event_rows(events)
        state = store._load(entry_id)
        if state is None and erasure.tombstone(store, entry_id) is not None:
            return False  # erased meanwhile: the outcome is stale
        if state is None:
            raise EntryNotFound(entry_id)
        wanted = EntryStatus.REVIEW if from_review else EntryStatus.ACTIVE
        current = rowmap.is_current(replace(state, status=EntryStatus.ACTIVE), expected_attempts)
        if not current or state.status is not wanted or state.content is None:
            return False
        parsed = record if isinstance(record, FactRecord) else None
        record_json = _StoredJson(record)
        dictionary = store._agent_dictionary(state.agent_id, now_us)
        latest = (dictionary[0], store._dictionary_hash(dictionary[0]))
        if body is None or not body.fits(narrative_text, state.content_hash, *latest):
            body = warm_columns.encode_body(
                entry_id,
                state.content,
                state.content_hash,
                narrative_text,
                record_json.value(),
                dictionary,
                search_index.schema_lookup(store),
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
            "identity_ref": store._profile_ref(meta_columns.profile),
        }
        index = body.index or search_index.warm_index_doc(
            store,
            entry_id,
            state.content,
            narrative,
            record_json.value(),
            narrative_facts,
            body.record_digest,
            parsed,
        )

        def work() -> bool:
            fenced = store._exec(
                "set_warm_reviewed" if from_review else "set_warm",
                id=entry_id,
                expected=expected_attempts,
                expected_errors=expected_errors,
                token=lease_token,
            ).fetchone()
            if fenced is None:
                return False
            attempt_no = int(fenced["attempt_no"])
            store._insert_attempt(attempt_no, *attempt_rows)
            if not keep_attempts:
                store._exec("delete_entry_attempts", id=entry_id)
            store._exec("insert_warm", **warm, attempt_no=attempt_no)
            store._exec("delete_hot", id=entry_id)
            search_index.index_demoted(store, index)
            store._insert_events(event_rows, entry_id, state.agent_id, now_us)
            return True

        return store._write(work)

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
        store = _store(self)
        if AttemptOutcome(attempt.outcome) in _DONE:
            raise InputError(f"apply_failed needs a failed or error attempt, not {attempt.outcome}")
        return store._apply_kept_hot(
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
        store = _store(self)
        if AttemptOutcome(attempt.outcome) is not AttemptOutcome.ERROR:
            raise InputError(f"apply_error needs an error attempt, not {attempt.outcome}")
        return store._apply_kept_hot(
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
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        attempt_rows = store._attempt_rows(entry_id, attempt, now_us)
        next_us = codec.opt_micros(next_attempt_at, "next_attempt_at")
        event_rows = store._event_rows(events)

        def work() -> bool:
            row = store._row("select_entry", id=entry_id)
            if row is None and erasure.tombstone(store, entry_id) is not None:
                return False  # erased meanwhile: the outcome is stale
            if row is None:
                raise EntryNotFound(entry_id)
            fenced = store._exec(
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
            store._insert_attempt(int(fenced["attempt_no"]), *attempt_rows)
            store._insert_events(event_rows, entry_id, str(row["agent_id"]), now_us)
            return True

        return store._write(work)

    def _attempt_rows(
        self, entry_id: str, attempt: AttemptRecord, now_us: int, narrative: str | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The attempt's and its model calls' parameters, made (and checked) before the
        transaction; the attempt number is set inside it. ``narrative``: the warm narrative
        written with the attempt (its summary is then stored once, there). Its schema hash
        and its identities are stored once (``schema_refs``, ``store_identities``)."""
        store = _store(self)
        calls = [rowmap.model_call_params(entry_id, 0, call, now_us) for call in attempt.calls]
        stored = schema_refs.elide_attempt(attempt, store._registered_hash)
        kind = rowmap.ATTEMPT_IDENTITY
        ref = store._identity_refs({kind: rowmap.attempt_identity(stored)})[kind]
        return rowmap.attempt_params(entry_id, 0, stored, ref, narrative), calls

    def _insert_attempt(
        self, attempt_no: int, attempt: dict[str, Any], calls: list[dict[str, Any]]
    ) -> None:
        store = _store(self)
        store._exec("insert_attempt", **{**attempt, "attempt_no": attempt_no})
        for call in calls:
            store._exec("insert_model_call", **{**call, "attempt_no": attempt_no})

    def attempts(self, entry_id: str) -> list[AttemptRecord]:
        """The entry's compression history, oldest first (redacted for an erased entry)."""
        store = _store(self)
        with store._read():
            if (
                store._row("select_entry", id=entry_id) is None
                and erasure.tombstone(store, entry_id) is None
            ):
                raise EntryNotFound(entry_id)
            rows = store._rows(store._sql("select_attempts"), {"id": entry_id})
        return [
            schema_refs.restore_attempt(
                rowmap.attempt(
                    row, store._attempt_narrative(row["narrative"], row["dictionary_id"])
                ),
                store._registered_hash,
            )
            for row in rows
        ]

    def last_must_keep(self, entry_id: str) -> tuple[dict[str, Any], ...]:
        """The must-keep facts (JSON) of the entry's last verified attempt when it failed;
        empty when it passed, when there is none, or for attempts stored before must-keep
        facts were (schema version 4)."""
        store = _store(self)
        row = store._row("select_last_verified", id=entry_id)
        if row is None or row["outcome"] != AttemptOutcome.FAILED.value or row["must_keep"] is None:
            return ()
        return tuple(codec.load_json(row["must_keep"]))

    def model_calls(self, entry_id: str) -> list[tuple[int, ModelCall]]:
        """Every model call made for the entry, as ``(attempt_no, call)``, oldest first."""
        store = _store(self)
        rows = store._rows(store._sql("select_model_calls"), {"id": entry_id})
        return [rowmap.model_call(row) for row in rows]
