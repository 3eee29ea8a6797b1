"""Loss patterns: which fields summaries keep losing, per schema version and summarizer.

``loss_patterns(store)`` groups verified attempts (clean, acceptable, failed) by schema
name, schema version and summarizer (the model or offline method), and counts for each field
how often the diff found it ``missing``, ``changed`` and ``added``. A field's ``rate`` is the
share of the group's attempts whose diff named it at all; ``examples`` are the first entry
ids where it happened. Operators adjust schemas (criticality, cues, patterns) from these.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from factdiff.store.rows import diff_fields

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

__all__ = ["EXAMPLES", "loss_patterns"]

EXAMPLES = 3
"""Example entry ids kept per field."""

_KINDS = ("missing", "changed", "added")


class _Group:
    def __init__(self) -> None:
        self.attempts = 0
        self.counts: dict[str, Counter[str]] = {}
        self.touched: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}

    def add(self, entry_id: str, diff: Any) -> None:
        self.attempts += 1
        seen: set[str] = set()
        for kind, name in diff_fields(diff):
            self.counts.setdefault(name, Counter())[kind] += 1
            if name not in seen:
                seen.add(name)
                self.touched[name] += 1
                examples = self.examples.setdefault(name, [])
                if len(examples) < EXAMPLES and entry_id not in examples:
                    examples.append(entry_id)

    def fields(self) -> list[dict[str, Any]]:
        ordered = sorted(self.counts, key=lambda n: (-self.touched[n], n))
        return [
            {
                "field": name,
                **{kind: self.counts[name][kind] for kind in _KINDS},
                **{
                    f"{kind}_rate": round(self.counts[name][kind] / self.attempts, 4)
                    for kind in _KINDS
                },
                "rate": round(self.touched[name] / self.attempts, 4),
                "examples": self.examples[name],
            }
            for name in ordered
        ]


def loss_patterns(
    store: MemoryStore,
    *,
    schema: str | None = None,
    agent: str | None = None,
    since: datetime | None = None,
) -> dict[str, Any]:
    """The ``report losses --json`` object: ``groups`` (one per schema version and
    summarizer, most attempts first) with their ``attempts`` and ``fields``."""
    groups: dict[tuple[str, int | None, str], _Group] = {}
    for attempt in store.loss_attempts(schema_name=schema, agent=agent, since=since):
        key = (attempt.schema_name or "-", attempt.schema_version, attempt.summarizer)
        groups.setdefault(key, _Group()).add(attempt.entry_id, attempt.diff)
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0, kv[0][2]))
    return {
        "filters": {
            "schema": schema,
            "agent": agent,
            "since": None if since is None else since.isoformat(),
        },
        "groups": [
            {
                "schema": name,
                "version": version,
                "summarizer": summarizer,
                "attempts": group.attempts,
                "fields": group.fields(),
            }
            for (name, version, summarizer), group in ordered
        ],
    }
