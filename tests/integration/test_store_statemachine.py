"""A hypothesis state machine drives the store and compares it with a plain model."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from factdiff.store import (
    AttemptOutcome,
    AttemptRecord,
    BlankEntry,
    EntryStatus,
    EventType,
    NewEvent,
    Tier,
    open_store,
)
from tests.integration.store_helpers import meta

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DORMANT = timedelta(days=14)


@dataclass
class Model:
    content: str
    tier: Tier = Tier.HOT
    status: EntryStatus = EntryStatus.ACTIVE
    attempts: int = 0


def attempt(outcome: AttemptOutcome, now: datetime) -> AttemptRecord:
    return AttemptRecord(
        rung=0,
        summarizer="s",
        extractor="e",
        method_version="1",
        outcome=outcome,
        started_at=now,
        finished_at=now,
        duration_ms=0.5,
    )


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="factdiff-store-"))
        self.store = open_store(self.dir / "m.db")
        self.model: dict[str, Model] = {}
        self.now = T0

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def pick(self, index: int) -> str:
        """The ``index``-th entry in the order added (entry ids sort in an order of their
        random bits when added at the same time: a replay must pick the same entry)."""
        return list(self.model)[index % len(self.model)]

    @rule(content=st.text(max_size=40), days=st.integers(0, 30))
    def add(self, content: str, days: int) -> None:
        if any(0xD800 <= ord(c) <= 0xDFFF for c in content):
            return
        self.now += timedelta(days=days)
        if not content.strip():  # a blank entry is refused, and nothing is stored
            before = self.store.entry_page(limit=1).total
            with pytest.raises(BlankEntry):
                self.store.add("agent", content, now=self.now)
            assert self.store.entry_page(limit=1).total == before
            return
        self.model[self.store.add("agent", content, now=self.now)] = Model(content)

    @precondition(lambda self: self.model)
    @rule(index=st.integers(0, 1000))
    def touch(self, index: int) -> None:
        self.store.touch(self.pick(index), self.now)

    @precondition(lambda self: self.model)
    @rule(index=st.integers(0, 1000), stale=st.booleans())
    def demote(self, index: int, stale: bool) -> None:
        entry_id = self.pick(index)
        m = self.model[entry_id]
        expected = m.attempts + (1 if stale else 0)
        applied = self.store.apply_compressed(
            entry_id,
            expected_attempts=expected,
            narrative="summary",
            record={},
            meta=meta(),
            attempt=attempt(AttemptOutcome.CLEAN, self.now),
            events=[NewEvent(EventType.DEMOTED, {})],
            now=self.now,
        )
        ok = not stale and m.tier is Tier.HOT and m.status is EntryStatus.ACTIVE
        assert applied == ok
        if ok:
            m.tier, m.attempts = Tier.WARM, m.attempts + 1

    @precondition(lambda self: self.model)
    @rule(index=st.integers(0, 1000), escalate=st.booleans())
    def fail(self, index: int, escalate: bool) -> None:
        entry_id = self.pick(index)
        m = self.model[entry_id]
        applied = self.store.apply_failed(
            entry_id,
            expected_attempts=m.attempts,
            attempt=attempt(AttemptOutcome.FAILED, self.now),
            next_attempt_at=self.now + timedelta(hours=1),
            escalate=escalate,
            events=[NewEvent(EventType.COMPRESSION_FAILURE, {})],
            now=self.now,
        )
        ok = m.tier is Tier.HOT and m.status is EntryStatus.ACTIVE
        assert applied == ok
        if ok:
            m.attempts += 1
            if escalate:
                m.status = EntryStatus.REVIEW

    @precondition(lambda self: self.model)
    @rule(index=st.integers(0, 1000))
    def resolve(self, index: int) -> None:
        entry_id = self.pick(index)
        m = self.model[entry_id]
        assert self.store.resolve_review(entry_id, self.now) == (m.status is EntryStatus.REVIEW)
        m.status = EntryStatus.ACTIVE

    @precondition(lambda self: any(m.tier is Tier.WARM for m in self.model.values()))
    @rule(index=st.integers(0, 1000))
    def restore(self, index: int) -> None:
        warm = [i for i, m in self.model.items() if m.tier is Tier.WARM]
        entry_id = warm[index % len(warm)]
        self.store.restore(entry_id, self.now)
        self.model[entry_id].tier = Tier.HOT

    @invariant()
    def matches_model(self) -> None:
        for entry_id, m in self.model.items():
            entry = self.store.get(entry_id)
            assert (entry.tier, entry.status, entry.attempt_count) == (m.tier, m.status, m.attempts)
            if m.tier is Tier.HOT:
                assert entry.content == m.content
            else:
                assert self.store.read_cold(entry_id) == m.content
            assert len(self.store.attempts(entry_id)) == m.attempts
        assert self.store.verify() == []

    @invariant()
    def due_entries_are_hot_active_and_dormant(self) -> None:
        later = self.now + DORMANT
        for entry in self.store.due_for_demotion(later, DORMANT):
            m = self.model[entry.id]
            assert (m.tier, m.status) == (Tier.HOT, EntryStatus.ACTIVE)
            assert entry.last_used_at <= self.now


StoreMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None)
TestStoreMachine = StoreMachine.TestCase


def test_store_is_sound_after_a_run() -> None:
    machine = StoreMachine()
    try:
        machine.add("a\0b", 0)
        machine.demote(0, False)
        machine.restore(0)
        machine.matches_model()
    finally:
        machine.teardown()
