"""The attempts repository: an entry's compression history and the model calls made for it.

``Attempts`` runs over the store's ``Database``: an attempt's rows, made (and checked) before
the outcome's transaction that writes them (``params``, then ``insert`` inside it), and the
history read back (``attempts``, ``last_must_keep``, ``model_calls``). An attempt's schema
hash and identities are stored once (``schema_refs``, ``store_identities``) and a narrative
written with it is joined from its warm row: the schema registry and the compact storage do
that, through the callables the facade passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from factdiff.providers.accounting import ModelCall
from factdiff.store import codec, schema_refs
from factdiff.store import rows as rowmap
from factdiff.store.database import Database
from factdiff.store.model import AttemptOutcome, AttemptRecord, EntryNotFound, Tombstone
from factdiff.values.base import JSON

__all__ = ["AttemptParams", "Attempts"]

AttemptParams = tuple[dict[str, object], list[dict[str, object]]]
"""An attempt's ``insert_attempt`` parameters and its model calls' ``insert_model_call``
ones, without their attempt number (set inside the transaction)."""


class Attempts:
    """Attempts of one store (see the module docstring).

    Besides the ``Database``: ``tombstone`` (an erased entry's), ``registered_hash`` (a
    registered schema version's hash), ``identity_refs`` (ids of stored identities,
    registered when new) and ``attempt_narrative`` (a warm narrative joined to an attempt
    row, decoded).
    """

    def __init__(
        self,
        db: Database,
        *,
        tombstone: Callable[[str], Tombstone | None],
        registered_hash: schema_refs.Registered,
        identity_refs: Callable[[Mapping[str, str]], dict[str, int]],
        attempt_narrative: Callable[[bytes | None, int | None], str | None],
    ) -> None:
        self._db = db
        self._tombstone = tombstone
        self._registered_hash = registered_hash
        self._identity_refs = identity_refs
        self._attempt_narrative = attempt_narrative

    def params(
        self, entry_id: str, attempt: AttemptRecord, now_us: int, narrative: str | None = None
    ) -> AttemptParams:
        """The attempt's and its model calls' parameters, made (and checked) before the
        transaction; the attempt number is set inside it. ``narrative``: the warm narrative
        written with the attempt (its summary is then stored once, there). Its schema hash
        and its identities are stored once (``schema_refs``, ``store_identities``)."""
        calls = [rowmap.model_call_params(entry_id, 0, call, now_us) for call in attempt.calls]
        stored = schema_refs.elide_attempt(attempt, self._registered_hash)
        kind = rowmap.ATTEMPT_IDENTITY
        ref = self._identity_refs({kind: rowmap.attempt_identity(stored)})[kind]
        return rowmap.attempt_params(entry_id, 0, stored, ref, narrative), calls

    def insert(
        self, attempt_no: int, attempt: dict[str, object], calls: list[dict[str, object]]
    ) -> None:
        """Inside a write: the attempt made by ``params`` as the entry's ``attempt_no``."""
        self._db.exec("insert_attempt", **{**attempt, "attempt_no": attempt_no})
        for call in calls:
            self._db.exec("insert_model_call", **{**call, "attempt_no": attempt_no})

    def attempts(self, entry_id: str) -> list[AttemptRecord]:
        """The entry's compression history, oldest first (redacted for an erased entry)."""
        with self._db.read():
            if (
                self._db.row("select_entry", id=entry_id) is None
                and self._tombstone(entry_id) is None
            ):
                raise EntryNotFound(entry_id)
            rows = self._db.rows(self._db.sql("select_attempts"), {"id": entry_id})
        return [
            schema_refs.restore_attempt(
                rowmap.attempt(
                    row, self._attempt_narrative(row["narrative"], row["dictionary_id"])
                ),
                self._registered_hash,
            )
            for row in rows
        ]

    def last_must_keep(self, entry_id: str) -> tuple[dict[str, JSON], ...]:
        """The must-keep facts (JSON) of the entry's last verified attempt when it failed;
        empty when it passed, when there is none, or for attempts stored before must-keep
        facts were (schema version 4)."""
        row = self._db.row("select_last_verified", id=entry_id)
        if row is None or row["outcome"] != AttemptOutcome.FAILED.value or row["must_keep"] is None:
            return ()
        return tuple(codec.load_json(row["must_keep"]))

    def model_calls(self, entry_id: str) -> list[tuple[int, ModelCall]]:
        """Every model call made for the entry, as ``(attempt_no, call)``, oldest first."""
        rows = self._db.rows(self._db.sql("select_model_calls"), {"id": entry_id})
        return [rowmap.model_call(row) for row in rows]
