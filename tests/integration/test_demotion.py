"""Demotion on a real SQLite file: outcomes, retries, escalation, refusals, crash safety."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.model import FactSchema
from factdiff.store import AttemptOutcome, EntryStatus, EventType, MemoryStore, Tier, open_store
from factdiff.summarize import ExtractiveSummarizer, Summary, SummaryRequest
from tests.conftest import worked
from tests.integration.store_helpers import add_blank_entry

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
LATER = T0 + timedelta(days=30)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    opened = open_store(tmp_path / "memory.db")
    yield opened
    opened.close()


def add_worked(store: MemoryStore) -> str:
    return store.add(
        "support-bot",
        worked("source"),
        now=T0,
        occurred_at=T0,
        schema="customer_service",
        last_used_at=T0,
    )


def settings(ladder: str, attempts: int | None = None) -> DemotionSettings:
    rungs = ladder_from_spec(ladder)
    return DemotionSettings(ladder=rungs, retry=RetryPolicy(max_attempts=attempts or len(rungs)))


def test_naive_fails_then_the_ladder_passes(store: MemoryStore) -> None:
    entry_id = add_worked(store)
    demoter = Demoter(store, settings("naive:40,extractive:0.35x"))

    first = demoter.run(LATER)
    assert first.counts == {"failed": 1}
    entry = store.get(entry_id)
    assert entry.tier is Tier.HOT
    assert entry.content == worked("source")
    assert entry.attempt_count == 1
    assert entry.next_attempt_at is not None
    (failure,) = store.events(entry_id, type=EventType.COMPRESSION_FAILURE)
    assert {"source_facts", "summary_facts", "summary", "diff"} <= set(failure.payload)
    assert failure.payload["diff"]["missing"]

    assert demoter.run(LATER).counts == {}  # backoff: not due yet
    second = demoter.run(entry.next_attempt_at)
    assert second.counts == {"clean": 1}
    warm = store.get(entry_id)
    assert warm.tier is Tier.WARM
    assert warm.warm is not None
    assert warm.content is None
    record = FactRecord.from_json(warm.warm.record)
    assert record.fields["invoice_id"][0].value.canonical() == "INV-9182"
    meta = warm.warm.meta
    assert meta.schema.name == "customer_service"
    assert meta.summarizer == "extractive"
    assert meta.extractor == "rules/10"
    assert meta.attempt_count == 2
    assert meta.source_content_hash == warm.content_hash
    assert meta.source_facts_digest == record.digest()
    assert store.read_cold(entry_id) == worked("source")
    assert [a.outcome for a in store.attempts(entry_id)] == [
        AttemptOutcome.FAILED,
        AttemptOutcome.CLEAN,
    ]
    types = [e.type for e in store.events(entry_id)]
    assert EventType.DEMOTED in types
    assert EventType.COMPRESSION_CLEAN in types
    assert store.verify() == []


@dataclass
class RecordingSummarizer:
    """Drops every fact the first time, then keeps what it is told to keep."""

    requests: list[SummaryRequest] = field(default_factory=list)

    @property
    def identity(self) -> str:
        return "recording"

    def summarize(self, request: SummaryRequest) -> Summary:
        self.requests.append(request)
        if not request.must_keep:
            return Summary("A customer called about a bill.", "recording", "recording/1")
        return ExtractiveSummarizer().summarize(request)


def test_stricter_rung_receives_the_lost_facts_and_source_is_extracted_once(
    store: MemoryStore, customer_service: FactSchema
) -> None:
    calls: list[str] = []

    class CountingExtractor(RulesExtractor):
        def extract(
            self, text: str, schema: FactSchema, reference: date | None = None
        ) -> FactRecord:
            calls.append(text)
            return super().extract(text, schema, reference)

    entry_id = add_worked(store)
    recorder = RecordingSummarizer()
    demoter = Demoter(
        store,
        DemotionSettings(
            ladder=(
                Rung(recorder, budget_ratio=0.35),
                Rung(recorder, budget_ratio=0.6, strictness=1),
            ),
            extractor=CountingExtractor(),
        ),
    )
    demoter.run(LATER)
    demoter.run(LATER + timedelta(days=10))
    assert store.get(entry_id).tier is Tier.WARM
    kept = {f.value.display() for f in recorder.requests[1].must_keep}
    assert {"INV-9182", "CM-3392", "14250 USD", "2400 USD"} <= kept
    assert all(r.text == worked("source") for r in recorder.requests)  # always from the source
    assert calls.count(worked("source")) == 1  # cached by (content, schema, extractor)


def test_escalates_after_max_attempts_and_waits_for_an_operator(store: MemoryStore) -> None:
    entry_id = add_worked(store)
    demoter = Demoter(store, settings("naive:20,naive:20,naive:20"))
    moment = LATER
    for _ in range(3):
        demoter.run(moment)
        moment += timedelta(days=10)
    entry = store.get(entry_id)
    assert entry.status is EntryStatus.REVIEW
    assert entry.attempt_count == 3
    assert len(list(store.events(entry_id, type=EventType.ESCALATED_TO_REVIEW))) == 1
    assert demoter.run(moment + timedelta(days=100)).counts == {}
    store.resolve_review(entry_id, moment, "checked by hand")
    assert demoter.run(moment).processed == 1


def test_running_twice_changes_nothing_more(store: MemoryStore) -> None:
    ids = [add_worked(store) for _ in range(3)]
    demoter = Demoter(store, settings("extractive:0.6x"))
    assert demoter.run(LATER).counts == {"clean": 3}
    assert demoter.run(LATER).counts == {}
    for entry_id in ids:
        assert len(store.attempts(entry_id)) == 1
    assert store.stats()["tiers"] == {"hot": 0, "warm": 3, "cold": 3}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x " * 600_000, "above the compression limit"),
    ],
)
def test_unusable_entries_stay_hot_with_a_clear_reason(
    store: MemoryStore, content: str, reason: str
) -> None:
    if content.strip():
        entry_id = store.add("a", content, now=T0, last_used_at=T0)
    else:  # refused by add now (BlankEntry): a store written before the rule may hold one
        entry_id = add_blank_entry(store, "a", content, T0)
    result = Demoter(store).run(LATER)
    assert result.counts == {"error": 1, "escalated": 1}
    entry = store.get(entry_id)
    assert entry.tier is Tier.HOT
    assert entry.content == content
    (attempt,) = store.attempts(entry_id)
    assert attempt.error is not None
    assert reason in attempt.error


def test_nul_and_emoji_entries_round_trip_through_cold(store: MemoryStore) -> None:
    text = "Refund \x00 of $40 for order #W4923227 on 2026-03-02 🎉, confirmed by email."
    entry_id = store.add("a", text, now=T0, last_used_at=T0)
    Demoter(store, settings("extractive:1.0x")).run(LATER)
    assert store.get(entry_id).tier is Tier.WARM
    assert store.read_cold(entry_id) == text
    store.restore(entry_id, LATER)
    assert store.get(entry_id).content == text


CRASH_SCRIPT = textwrap.dedent(
    """
    import os, sys
    from datetime import datetime, UTC
    from factdiff.store import open_store
    from factdiff.demotion.demoter import Demoter, DemotionSettings
    from factdiff.compression.components import ladder_from_spec

    db, point, now = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3])
    store = open_store(db)
    seen = {"n": 0}
    original = {name: getattr(store, name) for name in ("apply_compressed", "apply_failed")}

    def crashing(name):
        def call(*args, **kwargs):
            seen["n"] += 1
            if point == "before_apply" and seen["n"] == 3:
                os._exit(9)
            result = original[name](*args, **kwargs)
            if point == "after_apply" and seen["n"] == 3:
                os._exit(9)
            return result
        return call

    for name in original:
        setattr(store, name, crashing(name))
    ladder = ladder_from_spec("naive:40,extractive:0.6x")
    Demoter(store, DemotionSettings(ladder=ladder, lease_seconds=0.5)).run(now)
    """
)


@pytest.mark.parametrize("point", ["before_apply", "after_apply"])
def test_crash_at_any_point_then_rerun_loses_and_duplicates_nothing(
    tmp_path: Path, point: str
) -> None:
    db = tmp_path / "crash.db"
    with open_store(db) as setup:
        ids = [add_worked(setup) for _ in range(5)]
    script = tmp_path / "crash.py"
    script.write_text(CRASH_SCRIPT)
    run = subprocess.run(
        [sys.executable, str(script), str(db), point, LATER.isoformat()],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 9, run.stderr
    time.sleep(0.6)  # the crashed pass's lease expires: its entry is claimable again
    with open_store(db) as store:
        demoter = Demoter(store, settings("naive:40,extractive:0.6x"))
        moment = LATER
        for _ in range(3):
            demoter.run(moment)
            moment += timedelta(days=10)
        for entry_id in ids:
            entry = store.get(entry_id)
            assert entry.tier is Tier.WARM
            attempts = store.attempts(entry_id)
            assert [a.attempt_no for a in attempts] == list(range(1, len(attempts) + 1))
            assert entry.attempt_count == len(attempts)
            assert store.read_cold(entry_id) == worked("source")
        assert store.verify() == []
        assert store.stats()["tiers"] == {"hot": 0, "warm": 5, "cold": 5}
