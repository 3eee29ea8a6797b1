"""``Stats``: the counts ``factdiff stats`` prints (tiers, outcomes, failure rates, facts
lost, events, usage and cost, storage, check coverage), and the figures it shares with the
dashboard and ``/metrics``, each defined once here: failure rates per schema version and per
agent, facts lost per field, the review backlog and the LLM cost.

``Stats`` reads over the store's ``Database``; the review backlog comes from ``Reports`` and
the storage sizes from the compact storage (``storage``), which the facade passes in."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from factdiff.store import rows as rowmap
from factdiff.store.compact_storage import StorageSizes
from factdiff.store.database import Database
from factdiff.store.model import AttemptOutcome, Tier
from factdiff.store.reports import AgentCoverage, Reports

__all__ = ["PAGE_SIZE", "Stats", "coverage_json", "failure_rate"]

PAGE_SIZE = rowmap.PAGE_SIZE

UsageRow = dict[str, str | int | None]
"""A row of ``model_usage``: model, role, counts and cost (six places, None: unknown)."""


def _cost(cost: object) -> str | None:
    """A summed cost in USD to six places (None: some billed call had no known price)."""
    return None if cost is None else f"{Decimal(str(cost)):.6f}"


def failure_rate(attempts: int, failed: int) -> float:
    """Failed or error attempts over attempts, to six places (0.0 without attempts)."""
    return round(failed / attempts, 6) if attempts else 0.0


class Stats:
    """``MemoryStore.stats`` and the shared figures (see the module docstring)."""

    def __init__(self, db: Database, reports: Reports, storage: Callable[[], StorageSizes]) -> None:
        self._db = db
        self._reports = reports
        self._storage = storage

    def stats(self) -> dict[str, Any]:
        """Counts for ``factdiff stats``.

        ``tiers`` (entries per tier; ``cold`` counts archives), ``entries`` (tier -> status
        -> count), ``attempts`` (outcome -> count, and ``total``), ``failure_rate``
        (``failure_by_schema``), ``failure_by_agent``, ``facts_lost`` (``facts_lost``),
        ``review_backlog`` (``review_backlog_summary``), ``events`` (type -> count),
        ``usage`` (per summarizer: attempts, tokens in and out of every call made for them,
        cost in USD; None when some billed attempt has no known price; summed in floating
        point on SQLite), ``model_usage`` (``model_usage``), ``llm_cost`` (``llm_cost``),
        ``storage`` (bytes per tier, see ``storage()``), ``coverage`` (``coverage``).
        """
        with self._db.read():
            by_status = self._db.rows(self._db.sql("count_entries"), {})
            cold = int(self._db.one("count_cold"))
            outcomes = self._db.rows(self._db.sql("count_attempts"), {})
            event_counts = self._db.rows(self._db.sql("count_events"), {})
            usage = self._db.rows(self._db.sql("usage_by_summarizer"), {})
        entries: dict[str, dict[str, int]] = {t.value: {} for t in (Tier.HOT, Tier.WARM)}
        for row in by_status:
            entries.setdefault(str(row["tier"]), {})[str(row["status"])] = int(row["n"])
        attempts = {o.value: 0 for o in AttemptOutcome}
        attempts.update({str(row["outcome"]): int(row["n"]) for row in outcomes})
        attempts["total"] = sum(attempts.values())
        model_usage = self._model_usage_rows()
        return {
            "tiers": {t: sum(s.values()) for t, s in entries.items()} | {Tier.COLD.value: cold},
            "entries": entries,
            "attempts": attempts,
            "failure_rate": self.failure_by_schema(),
            "failure_by_agent": self.failure_by_agent(),
            "facts_lost": self.facts_lost(),
            "review_backlog": self.review_backlog_summary(),
            "events": {str(row["type"]): int(row["n"]) for row in event_counts},
            "usage": [
                {
                    "summarizer": str(row["summarizer"]),
                    "attempts": int(row["attempts"]),
                    "tokens_in": int(row["tokens_in"]),
                    "tokens_out": int(row["tokens_out"]),
                    "cost_usd": _cost(row["cost_usd"]),
                }
                for row in usage
            ],
            "model_usage": [row for row, _ in model_usage],
            "llm_cost": _llm_cost(model_usage),
            "storage": self._storage(),
            "coverage": self.coverage(),
        }

    def coverage(self) -> dict[str, Any]:
        """What the checks that made warm entries verified, over the warm entries that keep
        it (written before coverage was kept: left out), overall and per agent: ``entries``,
        ``sentences`` (of their sources), ``verified`` (carrying a typed fact), ``share``
        (verified / sentences, None without any) and ``dropped_unverified`` (sentences no
        schema field covered that the narrative dropped)."""
        agents = self._reports.agent_coverage()
        total = AgentCoverage(
            "",
            sum(a.entries for a in agents),
            sum(a.sentences for a in agents),
            sum(a.verified for a in agents),
            sum(a.dropped for a in agents),
        )
        return {
            **coverage_json(total),
            "agents": [{"agent": a.agent, **coverage_json(a)} for a in agents],
        }

    def failure_by_schema(self) -> list[dict[str, Any]]:
        """Per schema name and version (None: attempts made without one): ``attempts``,
        ``failed`` (outcome failed or error) and their ``rate`` (``failure_rate``)."""
        rows = self._db.rows(self._db.sql("failure_by_schema"), {})
        return [
            {
                "schema": row["schema_name"] or None,
                "version": int(row["schema_version"] or 0) or None,
                "attempts": int(row["total"]),
                "failed": int(row["failed"] or 0),
                "rate": failure_rate(int(row["total"]), int(row["failed"] or 0)),
            }
            for row in rows
        ]

    def failure_by_agent(self) -> list[dict[str, Any]]:
        """Per agent, over all its attempts: ``attempts``, ``failed`` and ``rate`` (the memory
        score's ``failure_rate`` is another figure: the rate of the last attempts only)."""
        rows = self._db.rows(self._db.sql("failure_by_agent"), {})
        return [
            {
                "agent": str(row["agent_id"]),
                "attempts": int(row["total"]),
                "failed": int(row["failed"] or 0),
                "rate": failure_rate(int(row["total"]), int(row["failed"] or 0)),
            }
            for row in rows
        ]

    def lost_facts(self) -> dict[tuple[str, str, str], int]:
        """``(kind, field, criticality) -> count`` over the diffs of failed and acceptable
        attempts; kind is missing, changed or added, criticality ``unknown`` where the diff
        does not say. ``facts_lost`` and ``/metrics`` both count from it."""
        counts: Counter[tuple[str, str, str]] = Counter()
        sql, after = self._db.sql("lossy_diffs_page"), 0
        while True:
            rows = self._db.rows(sql, {"after": after, "limit": PAGE_SIZE})
            for row in rows:
                after = int(row["id"])
                diff = rowmap.attempt_diff(row["diff"], row["packed"])
                counts.update(_diff_facts(diff))
            if len(rows) < PAGE_SIZE:
                return dict(counts)

    def facts_lost(self) -> dict[str, dict[str, int]]:
        """Field -> missing/changed/added counts (``lost_facts`` over criticality), the most
        often lost first (then by name)."""
        counts: dict[str, Counter[str]] = {}
        for (kind, name, _), count in self.lost_facts().items():
            counts.setdefault(name, Counter())[kind] += count
        ordered = sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        return {
            name: {kind: c[kind] for kind in ("missing", "changed", "added")} for name, c in ordered
        }

    def review_backlog_summary(self) -> dict[str, Any]:
        """``{"total", "kept_hot", "by_agent": [{"agent", "count", "oldest_created_at"}]}``:
        entries waiting for an operator (in review and not kept hot), per agent that has any;
        ``kept_hot`` counts the entries in review an operator kept hot (not waiting)."""
        rows = self._reports.review_backlog()
        return {
            "total": sum(r.waiting for r in rows),
            "kept_hot": sum(r.kept_hot for r in rows),
            "by_agent": [
                {
                    "agent": r.agent,
                    "count": r.waiting,
                    "oldest_created_at": r.oldest_waiting.isoformat(),
                }
                for r in rows
                if r.waiting and r.oldest_waiting is not None
            ],
        }

    def model_usage(self) -> list[dict[str, Any]]:
        """Every model call, per model and role: ``calls``, ``http_calls``,
        ``failed_calls``, ``tokens_in``, ``tokens_out``, ``cost_usd`` (six places; None
        when a billed call has no known price)."""
        return [row for row, _ in self._model_usage_rows()]

    def llm_cost(self) -> dict[str, Any]:
        """``{"total_usd", "by_model": [{"model", "role", "calls", "tokens_in",
        "tokens_out", "cost_usd"}]}``: ``model_usage`` and its total in USD to six places
        (None when a billed call has no known price; ``"0.000000"`` without calls)."""
        return _llm_cost(self._model_usage_rows())

    def _model_usage_rows(self) -> list[tuple[UsageRow, Decimal | None]]:
        """The rows of ``model_usage``, each with its exact cost."""
        rows = self._db.rows(self._db.sql("usage_by_model"), {})
        return [
            (
                {
                    "model": str(row["model"]),
                    "role": str(row["role"]),
                    "calls": int(row["calls"]),
                    "http_calls": int(row["http_calls"]),
                    "failed_calls": int(row["failed_calls"]),
                    "tokens_in": int(row["tokens_in"]),
                    "tokens_out": int(row["tokens_out"]),
                    "cost_usd": _cost(row["cost_usd"]),
                },
                None if row["cost_usd"] is None else Decimal(str(row["cost_usd"])),
            )
            for row in rows
        ]


def coverage_json(counts: AgentCoverage) -> dict[str, Any]:
    """``{"entries", "sentences", "verified", "share", "dropped_unverified"}``."""
    share = counts.share
    return {
        "entries": counts.entries,
        "sentences": counts.sentences,
        "verified": counts.verified,
        "share": None if share is None else round(share, 4),
        "dropped_unverified": counts.dropped,
    }


def _llm_cost(usage: list[tuple[UsageRow, Decimal | None]]) -> dict[str, Any]:
    """``llm_cost`` of the rows of ``model_usage`` and their exact costs."""
    known = all(cost is not None for _, cost in usage)
    total = sum((cost for _, cost in usage if cost is not None), Decimal(0))
    keys = ("model", "role", "calls", "tokens_in", "tokens_out", "cost_usd")
    return {
        "total_usd": f"{total:.6f}" if known else None,
        "by_model": [{key: row[key] for key in keys} for row, _ in usage],
    }


def _diff_facts(diff: object) -> Iterator[tuple[str, str, str]]:
    """``(kind, field, criticality)`` of each missing, changed and added item of a diff
    (items are objects with ``field`` and ``criticality``, or field names in old rows)."""
    if not isinstance(diff, dict):
        return
    for kind in ("missing", "changed", "added"):
        items = diff.get(kind) or []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("field"), str):
                yield kind, item["field"], str(item.get("criticality") or "unknown")
            elif isinstance(item, str):
                yield kind, item, "unknown"
