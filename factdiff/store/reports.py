"""The store's reporting reads: registered schemas and their users, per-agent memory health,
loss patterns of verified attempts, re-evaluation results.

``Reports`` is a repository over the store's ``Database``; it only reads (every method works on a
read-only store). SQL lives in ``sql/<dialect>/reports.sql`` and ``reevaluation.sql``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from factdiff.store import codec
from factdiff.store import rows as rowmap
from factdiff.store.database import Database

__all__ = [
    "AgentCounts",
    "AgentCoverage",
    "BacklogCounts",
    "LossAttempt",
    "RegisteredSchema",
    "Reports",
]

PAGE = 256


@dataclass(frozen=True)
class RegisteredSchema:
    """One registered schema version."""

    name: str
    version: int
    hash: str
    registered_at: datetime


@dataclass(frozen=True)
class AgentCounts:
    """One agent's entries: all, warm, warm with known gaps, waiting for review (an operator's
    keep-hot decision takes an entry out of the backlog) and kept hot."""

    agent: str
    entries: int
    warm: int
    warm_with_gaps: int
    review: int
    kept_hot: int = 0


@dataclass(frozen=True)
class AgentCoverage:
    """One agent's warm entries whose check coverage is kept: how many, their source
    sentences, the sentences the checks verified, and the unverified ones dropped."""

    agent: str
    entries: int
    sentences: int
    verified: int
    dropped: int

    @property
    def share(self) -> float | None:
        """Verified sentences over all sentences (``None`` without any)."""
        return self.verified / self.sentences if self.sentences else None


@dataclass(frozen=True)
class BacklogCounts:
    """One agent's entries in review: waiting for an operator, kept hot by one (decided,
    not waiting), and when the oldest waiting one was added (None: none waits)."""

    agent: str
    waiting: int
    kept_hot: int
    oldest_waiting: datetime | None


@dataclass(frozen=True)
class LossAttempt:
    """A verified attempt and its diff (``missing``/``changed``/``added`` lists)."""

    id: int
    entry_id: str
    schema_name: str | None
    schema_version: int | None
    summarizer: str
    outcome: str
    diff: dict[str, Any]


class Reports:
    """Reporting reads of ``MemoryStore`` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def registered_schemas(self) -> list[RegisteredSchema]:
        """Every registered schema version, by name then version."""
        db = self._db
        rows = db.rows(db.sql("select_schemas"), {})
        return [
            RegisteredSchema(
                str(row["name"]),
                int(row["version"]),
                str(row["hash"]),
                codec.from_micros(int(row["registered_at"])),
            )
            for row in rows
        ]

    def agent_schema_assignments(self) -> list[tuple[str, str, str]]:
        """``(agent, tag, schema name)`` for every assignment (tag ``""``: the default)."""
        db = self._db
        rows = db.rows(db.sql("select_all_agent_schemas"), {})
        return [(str(row["agent_id"]), str(row["tag"]), str(row["schema_name"])) for row in rows]

    def agent_counts(self) -> list[AgentCounts]:
        """Entry counts per agent, by agent id."""
        db = self._db
        rows = db.rows(db.sql("agent_entry_counts"), {})
        return [
            AgentCounts(
                str(r["agent_id"]),
                int(r["entries"] or 0),
                int(r["warm"] or 0),
                int(r["warm_with_gaps"] or 0),
                int(r["review"] or 0),
                int(r["kept_hot"] or 0),
            )
            for r in rows
        ]

    def agent_coverage(self) -> list[AgentCoverage]:
        """Check coverage per agent with warm entries that keep it, by agent id."""
        db = self._db
        rows = db.rows(db.sql("agent_coverage"), {})
        return [
            AgentCoverage(
                str(r["agent_id"]),
                int(r["entries"] or 0),
                int(r["sentences"] or 0),
                int(r["verified"] or 0),
                int(r["dropped"] or 0),
            )
            for r in rows
        ]

    def review_backlog(self) -> list[BacklogCounts]:
        """Per agent with entries in review, by agent id: the one definition of the review
        backlog (``factdiff stats``, the dashboard, ``/metrics`` and the memory score)."""
        db = self._db
        rows = db.rows(db.sql("review_backlog_by_agent"), {})
        return [
            BacklogCounts(
                str(r["agent_id"]),
                int(r["waiting"] or 0),
                int(r["kept_hot"] or 0),
                None if r["oldest"] is None else codec.from_micros(int(r["oldest"])),
            )
            for r in rows
        ]

    def recent_outcomes(self, agent: str, limit: int) -> list[str]:
        """The outcomes of the agent's last ``limit`` attempts, newest first."""
        db = self._db
        rows = db.rows(db.sql("agent_recent_attempts"), {"agent": agent, "limit": limit})
        return [str(outcome) for (outcome,) in rows]

    def reevaluation_results(self, agent: str | None = None) -> list[tuple[str, int, str, int]]:
        """Finished re-evaluation items: ``(schema, to_version, result, count)``."""
        db = self._db
        rows = db.rows(db.sql("reevaluation_results"), {"agent": agent})
        return [
            (str(row["schema_name"]), int(row["to_version"]), str(row["result"]), int(row["n"]))
            for row in rows
        ]

    def reevaluation_by_agent(self) -> dict[str, tuple[int, int]]:
        """Per agent: ``(re-evaluated entries, promoted ones)`` (skipped items left out)."""
        db = self._db
        rows = db.rows(db.sql("reevaluation_by_agent"), {})
        return {str(row["agent_id"]): (int(row["n"]), int(row["promoted"] or 0)) for row in rows}

    def loss_attempts(
        self,
        *,
        schema_name: str | None = None,
        agent: str | None = None,
        since: datetime | None = None,
    ) -> Iterator[LossAttempt]:
        """Verified attempts (clean, acceptable, failed) with their diffs, in id order."""
        db = self._db
        sql, after = db.sql("loss_attempts_page"), 0
        params = {
            "schema_name": schema_name,
            "agent": agent,
            "since": codec.opt_micros(since, "since"),
        }
        while True:
            rows = db.rows(sql, {**params, "after": after, "limit": PAGE})
            for row in rows:
                after = int(row["id"])
                version = row["schema_version"]
                yield LossAttempt(
                    after,
                    str(row["entry_id"]),
                    None if row["schema_name"] is None else str(row["schema_name"]),
                    None if version is None else int(version),
                    str(row["summarizer"]),
                    str(row["outcome"]),
                    rowmap.attempt_diff(row["diff"], row["packed"]),
                )
            if len(rows) < PAGE:
                return
