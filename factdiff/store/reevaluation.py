"""The store's side of re-evaluation: durable work items for warm entries under a new version.

``Reevaluations`` holds them, over the store's ``Database``. A work item (table ``reevaluations``)
names one warm entry, its schema, the version it was compressed under and the version to
re-evaluate it under. Items are enqueued idempotently (one per entry, schema and target
version), claimed with a lease exactly as demotion claims entries (a random token, an owner,
an expiry on the database clock; ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), and finished in
one transaction fenced by that lease and by the warm row as it was read: the item is marked
done in the same transaction as its effect on the entry, so a crash at any step leaves either
both or neither, and a rerun claims the item again once its lease has expired.

SQL lives in ``sql/<dialect>/reevaluation.sql``. What finishing an item writes besides
(events, a promotion's rehydration, a warm row's encoding and index rows) the store's other
parts do, through the callables the facade passes in.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from factdiff.errors import InputError
from factdiff.inputs.times import clamp_time
from factdiff.store import codec
from factdiff.store.database import Database, Row
from factdiff.store.indexing import IndexDoc
from factdiff.store.model import Entry, NewEvent, Tier, WarmMeta
from factdiff.store.warm_columns import Dictionary

__all__ = ["ReevaluationFinish", "ReevaluationItem", "ReevaluationResult", "Reevaluations"]

EventRows = list[tuple[str, str, bytes | None]]
"""Events as stored (type, payload, packed payload), made before the transaction."""
WarmParams = Callable[
    [str, str, str, Mapping[str, object], WarmMeta, str, int, Dictionary], dict[str, object]
]
"""The compact columns of a warm row (entry id, source, narrative, record, meta, content
hash, compression time, dictionary)."""

CANDIDATE_PAGE = 256


class ReevaluationResult(enum.StrEnum):
    """What re-evaluating one warm entry under a new version did to it."""

    PROMOTED = "promoted"
    """Failed under the new version: back to hot from cold, due for recompression."""
    ANNOTATED = "annotated"
    """Acceptable with notes: its known gaps updated, its meta moved to the new version."""
    CLEAN = "clean"
    """Clean: its meta moved to the new version."""
    SKIPPED = "skipped"
    """No longer warm, or already at (or past) the target version: nothing to do."""


@dataclass(frozen=True)
class ReevaluationItem:
    """A claimed work item: only the holder of ``token`` may finish it before
    ``expires_at`` (database clock)."""

    id: int
    entry_id: str
    agent_id: str
    schema_name: str
    from_version: int
    to_version: int
    token: str
    expires_at: datetime


@dataclass(frozen=True)
class ReevaluationFinish:
    """How to finish one item (made before the transaction).

    ``seen`` is the warm state the decision was made on (``(attempt_no, meta)``, ``None`` when
    the entry was not warm): the transaction refuses to act if the entry changed since.
    Promotion needs ``entry``; annotated and clean need ``record``, ``meta`` and ``index``.
    """

    result: ReevaluationResult
    seen: tuple[int, WarmMeta] | None
    fields: tuple[str, ...] = ()
    diff: Mapping[str, Any] = field(default_factory=dict)
    entry: Entry | None = None
    record: Mapping[str, Any] | None = None
    meta: WarmMeta | None = None
    index: IndexDoc | None = None
    events: tuple[NewEvent, ...] = ()


class Reevaluations:
    """Re-evaluation work items of a store (see the module docstring).

    Besides the ``Database``: ``load`` (an entry with its warm view), ``event_rows`` and
    ``insert_events`` (events made before and written inside a transaction), ``rehydrate``
    (inside a write: a warm entry back to hot, its dormancy kept), ``index_demoted`` (a warm
    entry's index rows), ``cold_bytes`` (the verified source of a ``select_cold`` row),
    ``agent_dictionary`` and ``warm_params`` (a warm row's columns, encoded again).
    """

    def __init__(
        self,
        db: Database,
        *,
        load: Callable[[str], Entry | None],
        event_rows: Callable[[list[NewEvent]], EventRows],
        insert_events: Callable[[EventRows, str | None, str | None, int], None],
        rehydrate: Callable[[Entry, int], object],
        index_demoted: Callable[[IndexDoc], None],
        cold_bytes: Callable[[str, Row], bytes],
        agent_dictionary: Callable[[str, int], Dictionary],
        warm_params: WarmParams,
    ) -> None:
        self._db = db
        self._load = load
        self._event_rows = event_rows
        self._insert_events = insert_events
        self._rehydrate = rehydrate
        self._index_demoted = index_demoted
        self._cold_bytes = cold_bytes
        self._agent_dictionary = agent_dictionary
        self._warm_params = warm_params

    def warm_schema_versions(self, schema_name: str, agent: str | None = None) -> dict[int, int]:
        """How many warm entries (of ``agent``) each version of ``schema_name`` compressed."""
        rows = self._db.rows(
            self._db.sql("warm_schema_versions"), {"schema_name": schema_name, "agent": agent}
        )
        return {int(version): int(count) for version, count in rows if version is not None}

    def enqueue_reevaluations(
        self,
        schema_name: str,
        from_versions: Iterable[int],
        to_version: int,
        *,
        now: datetime,
        agent: str | None = None,
    ) -> int:
        """Make every warm entry (of ``agent``) compressed under one of ``from_versions`` of
        ``schema_name`` a pending item for ``to_version``, in one transaction; returns how
        many items are new (an entry already queued for that version is left as it is)."""
        now_us = codec.to_micros(now, "now")
        versions = sorted({int(v) for v in from_versions})
        if any(v >= to_version for v in versions):
            raise InputError(f"re-evaluation goes to a newer version than {versions}")

        def work() -> int:
            added = 0
            for version in versions:
                added += self._db.count(
                    "enqueue_reevaluations",
                    schema_name=schema_name,
                    from_version=version,
                    to_version=int(to_version),
                    agent=agent,
                    now=now_us,
                )
            return added

        return self._db.write(work) if versions else 0

    def warm_candidates(
        self, schema_name: str, from_version: int, agent: str | None = None
    ) -> Iterator[str]:
        """Ids of the warm entries (of ``agent``) compressed under ``from_version``."""
        sql, after = self._db.sql("warm_candidates_page"), ""
        params = {"schema_name": schema_name, "from_version": from_version, "agent": agent}
        while True:
            rows = self._db.rows(sql, {**params, "after": after, "limit": CANDIDATE_PAGE})
            for row in rows:
                (entry_id,) = row
                after = str(entry_id)
                yield after
            if len(rows) < CANDIDATE_PAGE:
                return

    def pending_reevaluations(
        self, schema_name: str | None = None, agent: str | None = None
    ) -> int:
        """Items not finished yet (claimed or not)."""
        return int(self._db.one("pending_reevaluations", schema_name=schema_name, agent=agent) or 0)

    def claim_reevaluations(
        self,
        worker_id: str,
        *,
        lease_seconds: float = 60.0,
        limit: int = 1,
        schema_name: str | None = None,
        agent: str | None = None,
    ) -> list[ReevaluationItem]:
        """Lease up to ``limit`` pending items (of ``schema_name``, ``agent``) in one short
        statement, in id order; an item under a live lease is skipped, an expired one taken."""
        if limit < 1:
            return []
        if lease_seconds <= 0:
            raise InputError(f"lease_seconds must be positive (got {lease_seconds})")
        params: dict[str, str | int | None] = {
            "owner": codec.check_text(worker_id, "worker id"),
            "lease": codec.duration_micros(lease_seconds, "lease_seconds"),
            "limit": int(limit),
            "schema_name": schema_name,
            "agent": agent,
        }
        rows = self._db.write(lambda: self._db.exec("claim_reevaluations", **params).fetchall())
        items = [
            ReevaluationItem(
                int(r["id"]),
                str(r["entry_id"]),
                str(r["agent_id"]),
                str(r["schema_name"]),
                int(r["from_version"]),
                int(r["to_version"]),
                str(r["lease_token"]),
                codec.from_micros(int(r["lease_expires_at"])),
            )
            for r in rows
        ]
        return sorted(items, key=lambda item: item.id)

    def heartbeat_reevaluation(self, token: str, lease_seconds: float = 60.0) -> datetime | None:
        """Extend a live item lease; ``None`` when it is lost (never revived)."""
        lease = codec.duration_micros(lease_seconds, "lease_seconds")
        row = self._db.write(
            lambda: self._db.exec("heartbeat_reevaluation", token=token, lease=lease).fetchone()
        )
        return None if row is None else codec.from_micros(int(row["lease_expires_at"]))

    def release_reevaluation(self, token: str) -> bool:
        """Give an item lease back (pending again at once); ``False`` if it was not held."""
        return self._db.write(lambda: self._db.count("release_reevaluation", token=token)) == 1

    def finish_reevaluation(
        self, item: ReevaluationItem, finish: ReevaluationFinish, *, now: datetime
    ) -> bool:
        """Apply one item's result in one transaction; ``False`` (nothing written) if stale.

        Stale: the entry's warm row is not the one the decision was made on (it was
        restored, recompressed or re-evaluated meanwhile: the item's lease is released, so it
        is decided again), or the item's lease is lost. Then, in order: the item is marked
        done (fenced by its lease), and the entry is promoted (back to hot through the same
        rehydration as ``restore``, its dormancy kept so it is due for recompression) or its
        warm record, meta and index rows replaced; ``events`` are appended.
        """
        return self.finish_reevaluations([(item, finish)], now=now)[0]

    def finish_reevaluations(
        self, done: list[tuple[ReevaluationItem, ReevaluationFinish]], *, now: datetime
    ) -> list[bool]:
        """Apply several items' results in one transaction (one commit), each fenced on its
        own as ``finish_reevaluation`` says: a stale item writes nothing and the others go on.
        Returns, per item, whether it was applied."""
        now_us = codec.to_micros(now, "now")
        prepared = [self._prepare(item, finish, now_us) for item, finish in done]

        def work() -> list[bool]:
            return [self._apply(one, now_us) for one in prepared]

        return self._db.write(work) if prepared else []

    def warm_state(self, entry: Entry) -> tuple[int, WarmMeta] | None:
        """``(attempt_no, meta)`` of a warm entry as loaded (``None`` when not warm)."""
        if entry.tier is not Tier.WARM or entry.warm is None:
            return None
        return entry.warm.attempt_no, entry.warm.meta

    def _prepare(
        self, item: ReevaluationItem, finish: ReevaluationFinish, now_us: int
    ) -> _Prepared:
        """One item's statements' parameters, made (and checked) before the transaction."""
        result = finish.result
        if result is ReevaluationResult.PROMOTED and finish.entry is None:
            raise InputError("a promotion needs the entry")
        if result in (ReevaluationResult.ANNOTATED, ReevaluationResult.CLEAN) and (
            finish.record is None or finish.meta is None or finish.index is None
        ):
            raise InputError(f"a {result} re-evaluation needs the new record, meta and index")
        item_params: dict[str, str | int] = {
            "id": item.id,
            "token": item.token,
            "result": result.value,
            "fields": codec.dump_json(list(finish.fields), "fields"),
            "diff": codec.dump_json(dict(finish.diff), "diff"),
            "now": now_us,
        }
        warm_params: dict[str, object] = {}
        if finish.record is not None and finish.meta is not None and finish.seen is not None:
            warm_params = self._compact_warm(item.entry_id, finish, now_us)
        events = self._event_rows(list(finish.events))
        return _Prepared(item, finish, item_params, warm_params, events)

    def _apply(self, one: _Prepared, now_us: int) -> bool:
        """Inside the transaction: the fences, then the item's effect."""
        item, finish = one.item, one.finish
        row = self._db.row("select_warm_state", id=item.entry_id)  # locks it on PostgreSQL
        loaded = None if row is None else self._load(item.entry_id)
        now_seen = (
            None
            if loaded is None or loaded.warm is None
            else (loaded.warm.attempt_no, loaded.warm.meta)
        )
        if now_seen != finish.seen or (finish.record is not None and not one.warm_params):
            self._db.exec("release_reevaluation", token=item.token)
            return False
        if self._db.exec("finish_reevaluation", **one.item_params).fetchone() is None:
            return False
        if finish.result is ReevaluationResult.PROMOTED:
            assert finish.entry is not None
            self._rehydrate(finish.entry, now_us)
        elif one.warm_params:
            assert finish.index is not None
            self._db.exec("update_warm_encoding", **one.warm_params)
            self._index_demoted(finish.index)
        self._insert_events(one.event_rows, item.entry_id, item.agent_id, now_us)
        return True

    def _compact_warm(
        self, entry_id: str, finish: ReevaluationFinish, now_us: int
    ) -> dict[str, object]:
        """The warm row's compact columns with the re-evaluated record and meta (made before
        the transaction, from the entry as it is now: ``{}`` when it is no longer warm, which
        the fence in ``_apply`` then finds stale). The narrative stays; it is encoded again
        with the agent's current dictionary, as the record is."""
        assert finish.record is not None
        assert finish.meta is not None
        entry = self._load(entry_id)
        if entry is None or entry.tier is not Tier.WARM or entry.warm is None:
            return {}
        cold = self._db.row("select_cold", id=entry_id)
        if cold is None:  # pragma: no cover - warm entries have archives
            return {}
        source = codec.decode_content(self._cold_bytes(entry_id, cold))
        dictionary = self._agent_dictionary(entry.agent_id, now_us)
        params = self._warm_params(
            entry_id,
            source,
            entry.warm.narrative,
            finish.record,
            finish.meta,
            entry.content_hash,
            codec.to_micros(clamp_time(entry.warm.compressed_at), "compressed_at"),
            dictionary,
        )
        return {**params, "id": entry_id}


@dataclass(frozen=True)
class _Prepared:
    """One item's statements' parameters, made (and checked) before the transaction."""

    item: ReevaluationItem
    finish: ReevaluationFinish
    item_params: dict[str, str | int]
    warm_params: dict[str, object]
    event_rows: EventRows
