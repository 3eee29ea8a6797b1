"""``MemoryStore.stats``: the counts ``factdiff stats`` prints (tiers, outcomes, failure
rates, facts lost, events, usage and cost, storage)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from factdiff.store import rows as rowmap
from factdiff.store.model import (
    AttemptOutcome,
    Tier,
)

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore

PAGE_SIZE = rowmap.PAGE_SIZE


def _store(mixin: StatsMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


def _cost(cost: Any) -> str | None:
    """A summed cost in USD to six places (None: some billed call had no known price)."""
    return None if cost is None else f"{Decimal(str(cost)):.6f}"


class StatsMixin:
    """``MemoryStore.stats`` (see the module docstring)."""

    def stats(self) -> dict[str, Any]:
        """Counts for ``factdiff stats``.

        ``tiers`` (entries per tier; ``cold`` counts archives), ``entries`` (tier -> status
        -> count), ``attempts`` (outcome -> count, and ``total``), ``failure_rate`` (per
        schema name and version: attempts, failed-or-error attempts, rate), ``facts_lost``
        (field -> missing/changed/added counts over failed and acceptable attempts),
        ``events`` (type -> count), ``usage`` (per summarizer: attempts, tokens in and out of
        every call made for them, cost in USD; None when some billed attempt has no known
        price; summed in floating point on SQLite), ``model_usage`` (per model and role:
        calls, HTTP requests, failed calls, tokens, cost, None when unknown), ``storage``
        (bytes per tier, see ``storage()``).
        """
        store = _store(self)
        with store._read():
            by_status = store._rows(store._sql("count_entries"), {})
            cold = int(store._one("count_cold"))
            outcomes = store._rows(store._sql("count_attempts"), {})
            rates = store._rows(store._sql("failure_by_schema"), {})
            event_counts = store._rows(store._sql("count_events"), {})
            usage = store._rows(store._sql("usage_by_summarizer"), {})
            by_model = store._rows(store._sql("usage_by_model"), {})
        entries: dict[str, dict[str, int]] = {t.value: {} for t in (Tier.HOT, Tier.WARM)}
        for row in by_status:
            entries.setdefault(str(row["tier"]), {})[str(row["status"])] = int(row["n"])
        attempts = {o.value: 0 for o in AttemptOutcome}
        attempts.update({str(row["outcome"]): int(row["n"]) for row in outcomes})
        attempts["total"] = sum(attempts.values())
        return {
            "tiers": {t: sum(s.values()) for t, s in entries.items()} | {Tier.COLD.value: cold},
            "entries": entries,
            "attempts": attempts,
            "failure_rate": [
                {
                    "schema": row["schema_name"],
                    "version": row["schema_version"],
                    "attempts": int(row["total"]),
                    "failed": int(row["failed"]),
                    "rate": int(row["failed"]) / int(row["total"]),
                }
                for row in rates
            ],
            "facts_lost": store._facts_lost(),
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
            "model_usage": [
                {
                    "model": str(row["model"]),
                    "role": str(row["role"]),
                    "calls": int(row["calls"]),
                    "http_calls": int(row["http_calls"]),
                    "failed_calls": int(row["failed_calls"]),
                    "tokens_in": int(row["tokens_in"]),
                    "tokens_out": int(row["tokens_out"]),
                    "cost_usd": _cost(row["cost_usd"]),
                }
                for row in by_model
            ],
            "storage": store.storage(),
        }

    def _facts_lost(self) -> dict[str, dict[str, int]]:
        store = _store(self)
        counts: dict[str, Counter[str]] = {}
        sql, after = store._sql("lossy_diffs_page"), 0
        while True:
            rows = store._rows(sql, {"after": after, "limit": PAGE_SIZE})
            for row in rows:
                after = int(row["id"])
                diff = rowmap.attempt_diff(row["diff"], row["packed"])
                for kind, name in rowmap.diff_fields(diff):
                    counts.setdefault(name, Counter())[kind] += 1
            if len(rows) < PAGE_SIZE:
                break
        ordered = sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        return {
            name: {kind: c[kind] for kind in ("missing", "changed", "added")} for name, c in ordered
        }
