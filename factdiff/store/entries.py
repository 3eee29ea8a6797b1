"""The entries repository: checking new entries, reading one, listing them page by page.

``Entries`` runs over the store's ``Database``: the parameters of a new entry, checked before
any write (``params``); one entry with its hot content or warm view (``load``, one
statement); the listings (``entries``, ``entry_page``, ``due_for_demotion``, streamed in
keyset pages) and ``touch``. A warm row's columns are decoded by the compact storage
(``warm_view``), which the facade passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from factdiff.errors import InputError
from factdiff.schema.names import check_reference
from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.compact_storage import WARM_COLUMNS
from factdiff.store.database import Database, Row
from factdiff.store.model import (
    BlankEntry,
    Entry,
    EntryNotFound,
    EntryStatus,
    NewEntry,
    Page,
    Tier,
    WarmView,
)

__all__ = ["PAGE_SIZE", "Entries"]

PAGE_SIZE = rowmap.PAGE_SIZE
_MIN_KEY = -(2**63)


class Entries:
    """Entries of one store (see the module docstring)."""

    def __init__(
        self,
        db: Database,
        max_entry_bytes: int,
        warm_view: Callable[[Entry, Row], WarmView],
    ) -> None:
        self._db = db
        self._max_entry_bytes = max_entry_bytes
        self._warm_view = warm_view

    def params(
        self, entry_id: str, item: NewEntry, now: datetime, now_us: int
    ) -> tuple[dict[str, Any], bytes]:
        """The ``insert_entry`` parameters of a new entry and its encoded content, checked
        (``InputError``, ``BlankEntry``, ``BadSchemaName``) before any write."""
        if not item.agent_id.strip():
            raise InputError("agent id must not be empty")
        BlankEntry.refuse(item.content)
        data = codec.encode_content(item.content, self._max_entry_bytes)
        schema = item.schema
        params = {
            "id": entry_id,
            "agent_id": codec.check_text(item.agent_id, "agent id"),
            "occurred_at": codec.opt_micros(item.occurred_at, "occurred_at"),
            "occurred_offset": codec.offset_minutes(item.occurred_at, "occurred_at"),
            "created_at": now_us,
            "last_used_at": codec.to_micros(item.last_used_at or now, "last_used_at"),
            "metadata": codec.dump_json(dict(item.metadata), "metadata"),
            "schema_name": None if schema is None else check_reference(schema),
            "tags": codec.dump_json([codec.check_text(t, "tag") for t in item.tags], "tags"),
            "content_hash": codec.content_hash(data),
            "size_bytes": len(data),
        }
        return params, data

    def load(self, entry_id: str) -> Entry | None:
        """The entry with its hot content or warm view (None if unknown)."""
        row = self._db.row("select_entry_full", id=entry_id)  # one statement: one snapshot
        if row is None:
            return None
        entry = rowmap.entry(row)
        if entry.tier is Tier.HOT:
            data = row["content"]
            return replace(entry, content=None if data is None else codec.decode_content(data))
        warm = row[rowmap.FULL_WARM : rowmap.FULL_WARM + WARM_COLUMNS]
        return replace(entry, warm=None if warm[0] is None else self._warm_view(entry, warm))

    def touch(self, entry_id: str, now: datetime) -> None:
        """Record a use of the entry: its dormancy clock restarts at ``now``."""
        now_us = codec.to_micros(now, "now")

        def work() -> int:
            return self._db.count("touch", id=entry_id, now=now_us)

        if self._db.write(work) == 0:
            raise EntryNotFound(entry_id)

    def entries(
        self,
        agent: str | None = None,
        tier: Tier | None = None,
        status: EntryStatus | None = None,
        limit: int | None = None,
        *,
        with_content: bool = True,
    ) -> Iterator[Entry]:
        """Entries in id order (creation order), streamed page by page.

        With ``with_content`` each entry is re-read with its content or warm view as it is
        yielded; without, ``content`` and ``warm`` stay ``None`` (cheap listings).
        """
        if tier is Tier.COLD:
            raise InputError("entries live in the hot or warm tier; cold holds their archives")
        sql = self._db.sql(
            "entries_page",
            agent=agent is not None,
            tier=tier is not None,
            status=status is not None,
        )
        params: dict[str, Any] = {
            "agent": agent,
            "tier": None if tier is None else Tier(tier).value,
            "status": None if status is None else EntryStatus(status).value,
        }
        return self._stream(sql, params, limit, with_content, due=False)

    def entry_page(
        self,
        *,
        agent: str | None = None,
        tier: Tier | None = None,
        status: EntryStatus | None = None,
        tag: str | None = None,
        exclude_kept: bool = False,
        after: str = "",
        limit: int = 100,
    ) -> Page[Entry]:
        """One page of entries in id order after the id ``after`` (``""``: from the start),
        with how many match the filters (``tag``: entries carrying that tag;
        ``exclude_kept``: not those kept hot by an operator) in all; one read snapshot. No
        content is loaded."""
        if tier is Tier.COLD:
            raise InputError("entries live in the hot or warm tier; cold holds their archives")
        if limit < 0:
            raise InputError(f"limit must not be negative (got {limit})")
        filters = {
            "agent": agent is not None,
            "tier": tier is not None,
            "status": status is not None,
            "tag": tag is not None,
            "unkept": exclude_kept,
        }
        params: dict[str, Any] = {
            "agent": agent,
            "tier": None if tier is None else Tier(tier).value,
            "status": None if status is None else EntryStatus(status).value,
            "tag": tag,
        }
        return self._db.keyset_page(
            "entries",
            filters,
            params,
            start="",
            after=after,
            limit=limit,
            key=lambda entry: entry.id,
            listed=self._db.row_items(rowmap.entry, params, after),
        )

    def due_for_demotion(
        self,
        now: datetime,
        older_than: timedelta,
        agent: str | None = None,
        limit: int | None = None,
        *,
        with_content: bool = True,
    ) -> Iterator[Entry]:
        """Hot, active entries unused since ``now - older_than`` whose backoff has expired.

        Ordered by ``last_used_at`` then id, streamed through a partial index. With
        ``with_content`` each entry is re-read as it is yielded and skipped if it has left
        the hot tier or active status meanwhile.
        """
        now_us = codec.to_micros(now, "now")
        params: dict[str, Any] = {
            "threshold": now_us - codec.duration_micros(older_than, "older_than"),
            "now": now_us,
            "agent": agent,
        }
        sql = self._db.sql("due_page" if agent is None else "due_page_agent")
        return self._stream(sql, params, limit, with_content, due=True)

    def _stream(
        self, sql: str, params: dict[str, Any], limit: int | None, with_content: bool, due: bool
    ) -> Iterator[Entry]:
        remaining = limit
        keys: dict[str, Any] = {"after": "", "after_used": _MIN_KEY, "after_id": ""}
        while remaining is None or remaining > 0:
            page = PAGE_SIZE if remaining is None else min(PAGE_SIZE, remaining)
            rows = self._db.rows(sql, {**params, **keys, "limit": page})
            for row in rows:
                entry = rowmap.entry(row)
                keys = {"after": entry.id, "after_used": row["last_used_at"], "after_id": entry.id}
                if with_content:
                    fresh = self.load(entry.id)
                    if fresh is None or (due and not rowmap.is_due(fresh)):
                        continue
                    entry = fresh
                yield entry
                if remaining is not None:
                    remaining -= 1
                    if remaining == 0:
                        return
            if len(rows) < page:
                return
