"""A schema that evolves (v2 adds ``call_time`` as critical and ``contact_email`` as
important), 200 support calls, and a summarizer that drops the call time or the e-mail
address of some of them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema
from factdiff.store import MemoryStore
from factdiff.summarize import Summary, SummaryRequest

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LATER = T0 + timedelta(days=30)
AGENT = "support-bot"
NAME = "support_calls"

V1 = """schema: support_calls
version: 1
description: Support calls about tickets and refunds.
inventory:
  identifier: critical
  money: critical
  date: critical
  time: contextual
fields:
  ticket_id: {type: identifier, pattern: 'T-\\d+', criticality: critical}
  refund_amount: {type: money, criticality: critical, cues: [refund]}
"""

V2 = V1.replace("version: 1", "version: 2") + (
    "  call_time: {type: time, criticality: critical, cues: [called at]}\n"
    "  contact_email: {type: email, criticality: important}\n"
)

CALLERS = ("Dana Whitfield", "Omar Castillo", "Priya Raman", "Tomas Lindqvist")


def call_text(number: int) -> str:
    """One support call; ticket ``T-1<number>``."""
    caller = CALLERS[number % len(CALLERS)]
    hour, minute = 8 + number % 9, (number * 7) % 60
    return (
        f"{caller} called at {hour:02d}:{minute:02d} about ticket T-{1000 + number}. "
        f"They asked for a refund of ${20 + number}.50 on the order from March 3, 2026. "
        f"The agent approved it and promised a confirmation to c{number}@example.com. "
        "The conversation was calm and friendly throughout."
    )


def drops_time(number: int) -> bool:
    """The summaries of these calls lose the call time."""
    return number % 4 == 0


def drops_email(number: int) -> bool:
    """The summaries of these calls lose the e-mail address."""
    return number % 5 == 0


def ticket_number(text: str) -> int:
    found = re.search(r"T-(\d+)", text)
    assert found is not None
    return int(found[1]) - 1000


class LossySummarizer:
    """Returns the source with the call time and/or the e-mail left out (by ticket number)."""

    identity = "lossy"

    def summarize(self, request: SummaryRequest) -> Summary:
        number = ticket_number(request.text)
        text = request.text
        if drops_time(number):
            text = re.sub(r" called at \d\d:\d\d", " called", text)
        if drops_email(number):
            text = text.replace(f" to c{number}@example.com", "", 1)
        return Summary(text=text, summarizer=self.identity, method_version="lossy/1")


def write_schemas(folder: Path) -> tuple[Path, Path]:
    """The two versions as YAML files."""
    v1, v2 = folder / "support_calls_v1.yaml", folder / "support_calls_v2.yaml"
    v1.write_text(V1, encoding="utf-8")
    v2.write_text(V2, encoding="utf-8")
    return v1, v2


def schema(version: int, folder: Path) -> FactSchema:
    return load_schema(write_schemas(folder)[version - 1])


def register(store: MemoryStore, loaded: FactSchema, text: str) -> None:
    store.register_schema(
        loaded.name, loaded.version, loaded.hash, loaded.definition(), source_text=text, now=T0
    )


def seed(store: MemoryStore, folder: Path, count: int = 200) -> list[str]:
    """``count`` calls added under v1 and demoted with the lossy summarizer (all warm)."""
    register(store, schema(1, folder), V1)
    store.set_agent_schema(AGENT, NAME)
    ids = [
        store.add(AGENT, call_text(n), now=T0, occurred_at=T0, last_used_at=T0)
        for n in range(count)
    ]
    ladder = (Rung(LossySummarizer(), budget_ratio=1.0),)
    report = Demoter(store, DemotionSettings(ladder=ladder, retry=RetryPolicy(1))).run(LATER)
    assert report.counts == {"clean": count}, report.counts
    return ids


def state(store: MemoryStore) -> dict[str, Any]:
    """Everything re-evaluation may change, for comparing two end states."""
    entries = {}
    for entry in store.entries():
        warm = entry.warm
        entries[entry.id] = (
            entry.tier.value,
            entry.attempt_count,
            entry.last_used_at,
            None if warm is None else warm.meta.schema.version,
            None if warm is None else [g.to_json() for g in warm.meta.known_gaps],
            None if warm is None else warm.record,
        )
    events: dict[str, int] = {}
    for event in store.events():
        events[event.type.value] = events.get(event.type.value, 0) + 1
    items = sorted(
        (str(r[0]), str(r[1]), r[2], r[3])
        for r in store.database.rows(
            "SELECT entry_id, status, result, fields FROM reevaluations", {}
        )
    )
    return {"entries": entries, "events": events, "items": items, "verify": store.verify()}
