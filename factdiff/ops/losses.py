"""Loss patterns: which fields summaries keep losing, per schema version and summarizer.

``loss_patterns(store)`` (a ``LossReport``; ``to_json()`` is ``report losses --json``) groups
verified attempts (clean, acceptable, failed) by schema
name, schema version and summarizer (the model or offline method), and counts for each field
how often the diff found it ``missing``, ``changed`` and ``added``. A field's ``rate`` is the
share of the group's attempts whose diff named it at all; ``examples`` are the first entry
ids where it happened. Operators adjust schemas (criticality, cues, patterns) from these.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from factdiff.store.rows import diff_fields

if TYPE_CHECKING:
    from factdiff.store import MemoryStore
    from factdiff.values.base import JSON

__all__ = ["EXAMPLES", "FieldLosses", "LossGroup", "LossReport", "loss_patterns"]

EXAMPLES = 3
"""Example entry ids kept per field."""

_KINDS = ("missing", "changed", "added")


@dataclass(frozen=True)
class FieldLosses:
    """How often one field was missing, changed and added in a group's attempts."""

    field: str
    missing: int
    changed: int
    added: int
    attempts: int
    touched: int
    examples: tuple[str, ...]

    @property
    def rate(self) -> float:
        """Share of the group's attempts whose diff named the field at all."""
        return round(self.touched / self.attempts, 4)

    def to_json(self) -> dict[str, JSON]:
        counts = {"missing": self.missing, "changed": self.changed, "added": self.added}
        return {
            "field": self.field,
            **counts,
            **{f"{kind}_rate": round(count / self.attempts, 4) for kind, count in counts.items()},
            "rate": self.rate,
            "examples": list(self.examples),
        }


@dataclass(frozen=True)
class LossGroup:
    """One schema version and summarizer: its verified attempts and its fields' losses, the
    most often touched first."""

    schema: str
    version: int | None
    summarizer: str
    attempts: int
    fields: tuple[FieldLosses, ...]

    def to_json(self) -> dict[str, JSON]:
        return {
            "schema": self.schema,
            "version": self.version,
            "summarizer": self.summarizer,
            "attempts": self.attempts,
            "fields": [item.to_json() for item in self.fields],
        }


@dataclass(frozen=True)
class LossReport:
    """The loss patterns under the filters they were read with."""

    schema: str | None
    agent: str | None
    since: datetime | None
    groups: tuple[LossGroup, ...]

    def to_json(self) -> dict[str, JSON]:
        """The ``report losses --json`` object: ``filters`` and ``groups``."""
        since = None if self.since is None else self.since.isoformat()
        return {
            "filters": {"schema": self.schema, "agent": self.agent, "since": since},
            "groups": [group.to_json() for group in self.groups],
        }


class _Group:
    def __init__(self) -> None:
        self.attempts = 0
        self.counts: dict[str, Counter[str]] = {}
        self.touched: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}

    def add(self, entry_id: str, diff: object) -> None:
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

    def fields(self) -> tuple[FieldLosses, ...]:
        ordered = sorted(self.counts, key=lambda n: (-self.touched[n], n))
        return tuple(
            FieldLosses(
                field=name,
                missing=self.counts[name]["missing"],
                changed=self.counts[name]["changed"],
                added=self.counts[name]["added"],
                attempts=self.attempts,
                touched=self.touched[name],
                examples=tuple(self.examples[name]),
            )
            for name in ordered
        )


def loss_patterns(
    store: MemoryStore,
    *,
    schema: str | None = None,
    agent: str | None = None,
    since: datetime | None = None,
) -> LossReport:
    """Groups (one per schema version and summarizer, in order) with their ``attempts`` and
    ``fields``."""
    groups: dict[tuple[str, int | None, str], _Group] = {}
    for attempt in store.loss_attempts(schema_name=schema, agent=agent, since=since):
        key = (attempt.schema_name or "-", attempt.schema_version, attempt.summarizer)
        groups.setdefault(key, _Group()).add(attempt.entry_id, attempt.diff)
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0, kv[0][2]))
    return LossReport(
        schema,
        agent,
        since,
        tuple(
            LossGroup(name, version, summarizer, group.attempts, group.fields())
            for (name, version, summarizer), group in ordered
        ),
    )
