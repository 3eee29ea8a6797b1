"""Schema hashes stored once (``factdiff.store.schema_refs``): elided only when they are the
registered hash, restored exactly, and never confused with a hash that is not."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from factdiff.store.model import AttemptOutcome, AttemptRecord, Event, EventType, NewEvent
from factdiff.store.schema_refs import (
    ELIDED,
    elide_attempt,
    elide_diff,
    elide_event,
    restore_attempt,
    restore_diff,
    restore_event,
)

HASH = "sha256:" + "ab" * 32
REGISTRY = {("customer_service", 3): HASH}
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def registered(name: str, version: int) -> str | None:
    return REGISTRY.get((name, version))


def diff(schema_hash: Any = HASH, version: Any = 3) -> dict[str, Any]:
    return {
        "missing": [{"field": "amount", "criticality": "critical"}],
        "changed": [],
        "added": [],
        "schema": {"hash": schema_hash, "name": "customer_service", "version": version},
    }


def test_a_registered_hash_is_elided_and_restored_exactly() -> None:
    stored = elide_diff(diff(), registered)
    assert stored["schema"] == {"hash": ELIDED, "name": "customer_service", "version": 3}
    assert stored["missing"] == diff()["missing"]
    assert restore_diff(stored, registered) == diff()


@pytest.mark.parametrize(
    "original",
    [
        diff(schema_hash="sha256:" + "cd" * 32),  # another hash than the registered one
        diff(version=4),  # a version not registered
        diff(version=True),  # not an int version
        {"missing": [], "schema": {"name": "customer_service", "version": 3}},  # no hash
        {"missing": []},  # no schema at all
        "not a diff",
    ],
)
def test_anything_else_is_stored_as_it_is(original: Any) -> None:
    assert elide_diff(original, registered) is original
    assert restore_diff(original, registered) is original


def test_a_false_or_string_hash_is_not_taken_for_the_elided_marker() -> None:
    for value in (False, "0", 0.0):
        stored = diff(schema_hash=value)
        assert restore_diff(stored, registered) is stored


def test_an_elided_hash_of_a_schema_no_longer_registered_is_an_error() -> None:
    stored = elide_diff(diff(), registered)
    with pytest.raises(ValueError, match="customer_service v3 is not registered"):
        restore_diff(stored, lambda name, version: None)


def attempt(**kw: Any) -> AttemptRecord:
    base = AttemptRecord(
        rung=0,
        summarizer="extractive",
        extractor="rules/2",
        method_version="extractive/1",
        outcome=AttemptOutcome.FAILED,
        started_at=T0,
        finished_at=T0,
        duration_ms=1.0,
        diff=diff(),
        summary="s",
        schema_name="customer_service",
        schema_version=3,
        schema_hash=HASH,
    )
    return replace(base, **kw)


def test_an_attempt_stores_its_schema_hash_once_and_reads_back_whole() -> None:
    stored = elide_attempt(attempt(), registered)
    assert stored.schema_hash is None
    assert stored.diff["schema"]["hash"] == ELIDED
    assert restore_attempt(stored, registered) == attempt()


def test_an_attempt_with_an_unregistered_schema_or_none_keeps_what_it_has() -> None:
    other = attempt(schema_hash="sha256:" + "ef" * 32, diff=diff("sha256:" + "ef" * 32))
    assert elide_attempt(other, registered) == other
    none = attempt(schema_name=None, schema_version=None, schema_hash=None, diff={})
    assert elide_attempt(none, registered) == none
    assert restore_attempt(none, registered) == none


def test_an_event_payload_diff_is_elided_and_restored() -> None:
    new = NewEvent(EventType.COMPRESSION_CLEAN, {"rung": 0, "diff": diff()})
    stored = elide_event(new, registered)
    assert stored.payload["diff"]["schema"]["hash"] == ELIDED
    assert stored.payload["rung"] == 0
    read = Event(1, stored.type, "E1", "bot", T0, stored.payload)
    assert restore_event(read, registered).payload == new.payload
    plain = NewEvent(EventType.DEMOTED, {"summarizer": "extractive"})
    assert elide_event(plain, registered) is plain
