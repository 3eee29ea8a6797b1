"""Leases: workers claim due entries, keep them with heartbeats and give them back, all
measured on the database clock (``db_now``).

``Leases`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods. A claim with content re-reads each entry through the entries' ``load``.

A claim marks due entries with a fresh token and an expiry computed on the database clock; an
outcome applied with ``lease_token=`` commits only while that lease is still held and
unexpired (see ``factdiff.store.outcomes``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from factdiff.errors import InputError
from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.database import Database
from factdiff.store.model import Claim, Entry


class Leases:
    """Leases of one store (see the module docstring)."""

    def __init__(self, db: Database, load: Callable[[str], Entry | None]) -> None:
        self._db = db
        self._load = load

    def claim(
        self,
        worker_id: str,
        *,
        now: datetime | None = None,
        older_than: timedelta = timedelta(days=14),
        lease_seconds: float = 60.0,
        limit: int = 1,
        agent: str | None = None,
        with_content: bool = True,
    ) -> list[Claim]:
        """Lease up to ``limit`` due entries to ``worker_id`` in one short statement.

        Due means hot, active, unused since ``now - older_than``, past its backoff, and not
        under a live lease (an expired lease is simply claimed again). ``now`` defaults to
        the database clock; the lease expiry is always the database clock plus
        ``lease_seconds``. Each claim gets its own random token. On PostgreSQL the rows are
        picked with ``FOR UPDATE SKIP LOCKED`` so concurrent claimers never wait on or
        share an entry; the claim commits at once. With ``with_content`` every claimed
        entry is then re-read with its hot content (outside the claim's transaction).
        Claims come in due order (``last_used_at``, id).
        """
        db = self._db
        if limit < 1:
            return []
        if lease_seconds <= 0:
            raise InputError(f"lease_seconds must be positive (got {lease_seconds})")
        params: dict[str, str | int | None] = {
            "owner": codec.check_text(worker_id, "worker id"),
            "now": codec.opt_micros(now, "now"),
            "older_than": codec.duration_micros(older_than, "older_than"),
            "lease": codec.duration_micros(lease_seconds, "lease_seconds"),
            "limit": int(limit),
            "agent": agent,
        }
        key = "claim" if agent is None else "claim_agent"
        rows = db.write(lambda: db.exec(key, **params).fetchall())
        claims = sorted(
            (
                Claim(
                    entry=rowmap.entry(row),
                    token=str(row["lease_token"]),
                    expires_at=codec.from_micros(row["lease_expires_at"]),
                    claimed_at=codec.from_micros(row["claimed_at"]),
                )
                for row in rows
            ),
            key=lambda c: (c.entry.last_used_at, c.entry.id),
        )
        if not with_content:
            return claims
        loaded: list[Claim] = []
        for claim in claims:
            fresh = self._load(claim.entry.id)
            if fresh is None or not rowmap.is_due(fresh):  # pragma: no cover - leased rows
                self.release(claim.token)
                continue
            loaded.append(replace(claim, entry=fresh))
        return loaded

    def heartbeat(self, token: str, lease_seconds: float = 60.0) -> datetime | None:
        """Extend a live lease to the database clock plus ``lease_seconds``.

        Returns the new expiry, or ``None`` when the lease is lost (expired, released, or
        its outcome already applied): an expired lease is never revived, so two workers
        never hold one entry at the same time.
        """
        db = self._db
        lease = codec.duration_micros(lease_seconds, "lease_seconds")
        row = db.write(lambda: db.exec("heartbeat", token=token, lease=lease).fetchone())
        return None if row is None else codec.from_micros(row["lease_expires_at"])

    def release(self, token: str) -> bool:
        """Give a lease back (the entry is due again at once); ``False`` if it was not held."""
        db = self._db
        return db.write(lambda: db.count("release", token=token)) == 1

    def leases(self) -> list[tuple[str, str, str, datetime]]:
        """Live and expired leases: ``(entry_id, worker_id, token, expires_at)``."""
        db = self._db
        rows = db.rows(db.sql("select_leases"), {})
        return [
            (
                str(r["id"]),
                str(r["lease_owner"]),
                str(r["lease_token"]),
                codec.from_micros(r["lease_expires_at"]),
            )
            for r in rows
        ]

    def db_now(self) -> datetime:
        """The database clock (the one leases are measured on)."""
        return codec.from_micros(int(self._db.one("db_now")))
