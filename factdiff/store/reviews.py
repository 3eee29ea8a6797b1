"""The review queue: entries escalated after failed attempts are returned to demotion
(``resolve_review(s)``) or kept hot for good by an operator (``keep_hot``).

``Reviews`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods. Each decision appends its event through the store's event writer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.database import Database
from factdiff.store.event_log import AppendEvents
from factdiff.store.model import (
    EntryNotFound,
    EntryStatus,
    EventType,
    NewEvent,
    Tier,
    WrongTier,
)

PAGE_SIZE = rowmap.PAGE_SIZE


class Reviews:
    """The review queue of one store (see the module docstring)."""

    def __init__(self, db: Database, append_events: AppendEvents) -> None:
        self._db = db
        self._append_events = append_events

    def resolve_review(self, entry_id: str, now: datetime, note: str = "") -> bool:
        """Return a ``review`` entry to ``active`` (due again at once) with a
        ``review_resolved`` event; ``False`` if it was not in review."""
        db = self._db
        now_us = codec.to_micros(now, "now")
        payload = {"note": codec.check_text(note, "note")}

        def work() -> bool:
            row = db.row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            if db.count("set_resolved", id=entry_id) != 1:
                return False
            db.exec("delete_kept_hot", id=entry_id)
            event = NewEvent(EventType.REVIEW_RESOLVED, payload)
            self._append_events([event], entry_id, str(row["agent_id"]), now_us)
            return True

        return db.write(work)

    def resolve_reviews(
        self,
        now: datetime,
        *,
        agent: str | None = None,
        reason: str | None = None,
        note: str = "",
    ) -> list[str]:
        """Return every ``review`` entry (of ``agent``; whose latest ``escalated_to_review``
        event gives ``reason`` as its ``reason`` or ``failure_class``) to ``active``, each with
        a ``review_resolved`` event; returns their ids in id order. Entries an operator kept
        hot (``keep_hot``) stay as they are.

        Entries are taken a page at a time, one transaction per page; an entry resolved
        meanwhile by someone else is skipped, never resolved twice.
        """
        db = self._db
        now_us = codec.to_micros(now, "now")
        payload = {"note": codec.check_text(note, "note")}
        if reason is not None:
            payload["reason"] = codec.check_text(reason, "reason")
        sql = db.sql("entries_page", agent=agent is not None, status=True, unkept=True)
        params = {"agent": agent, "status": EntryStatus.REVIEW.value, "limit": PAGE_SIZE}
        resolved: list[str] = []
        after = ""
        while True:
            rows = db.rows(sql, {**params, "after": after})
            if not rows:
                return resolved
            after = str(rows[-1]["id"])
            chosen = [
                (str(row["id"]), str(row["agent_id"]))
                for row in rows
                if reason is None or self._escalated_for(str(row["id"]), reason)
            ]

            def work(batch: list[tuple[str, str]] = chosen) -> list[str]:
                done = []
                for entry_id, agent_id in batch:
                    if db.count("set_resolved", id=entry_id) == 1:
                        event = NewEvent(EventType.REVIEW_RESOLVED, payload)
                        self._append_events([event], entry_id, agent_id, now_us)
                        done.append(entry_id)
                return done

            if chosen:
                resolved.extend(db.write(work))
            if len(rows) < PAGE_SIZE:
                return resolved

    def keep_hot(self, entry_id: str, now: datetime, *, key_name: str, reason: str) -> bool:
        """Keep an entry in review hot for good: demotion never takes it, the review queue
        leaves it out (``exclude_kept``), bulk resolution skips it; a ``kept_hot`` event
        records who and why. ``False`` if it was kept already; ``WrongTier`` unless it is
        hot and in review. ``resolve_review`` of the entry undoes it."""
        db = self._db
        now_us = codec.to_micros(now, "now")
        params = {
            "id": entry_id,
            "now": now_us,
            "key_name": codec.check_text(key_name, "key name"),
            "reason": codec.check_text(reason, "reason"),
        }

        def work() -> bool:
            row = db.row("select_entry", id=entry_id)
            if row is None:
                raise EntryNotFound(entry_id)
            entry = rowmap.entry(row)
            if entry.tier is not Tier.HOT or entry.status is not EntryStatus.REVIEW:
                raise WrongTier(
                    f"entry {entry_id} is {entry.tier.value} and {entry.status.value}: only a "
                    "hot entry in review can be kept hot"
                )
            if db.count("insert_kept_hot", **params) != 1:
                return False
            payload = {"key": key_name, "reason": reason}
            self._append_events(
                [NewEvent(EventType.KEPT_HOT, payload)], entry_id, entry.agent_id, now_us
            )
            return True

        return db.write(work)

    def kept_hot(self, entry_id: str) -> dict[str, str] | None:
        """``{"kept_at", "key", "reason"}`` when an operator kept the entry hot, else None."""
        row = self._db.row("select_kept_hot", id=entry_id)
        if row is None:
            return None
        return {
            "kept_at": codec.from_micros(int(row["kept_at"])).isoformat(),
            "key": str(row["key_name"]),
            "reason": str(row["reason"]),
        }

    def review_reason(self, entry_id: str) -> dict[str, str] | None:
        """Why the entry was last sent to review: ``{"reason", "detail"}`` from its last
        ``escalated_to_review`` event (``reason`` as ``factdiff.demotion.retry.ReviewReason``:
        ``max_attempts``, ``provider_unavailable``, ``refused_input``...); None if it never
        was. An entry in review is there for this reason."""
        found = self._last_escalation(entry_id)
        if found is None:
            return None
        reason = found.get("reason") or found.get("failure_class") or ""
        detail = found.get("detail") or ""
        return {"reason": str(reason), "detail": str(detail)}

    def _escalated_for(self, entry_id: str, reason: str) -> bool:
        """Whether the entry's last escalation gives ``reason`` (as reason or failure class)."""
        found = self._last_escalation(entry_id)
        return found is not None and reason in (found.get("reason"), found.get("failure_class"))

    def _last_escalation(self, entry_id: str) -> dict[str, Any] | None:
        """The payload of the entry's last ``escalated_to_review`` event (None: never)."""
        row = self._db.row("last_escalation", id=entry_id)
        if row is None:
            return None
        escalation = [e for e in rowmap.events(row) if e.type is EventType.ESCALATED_TO_REVIEW]
        found = escalation[-1].payload if escalation else None
        return found if isinstance(found, dict) else None
