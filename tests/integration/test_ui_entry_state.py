"""The review pages' JSON twins show an entry's current state, on SQLite and PostgreSQL:
after an operator's edit is verified and written, the entry's view is its warm narrative,
facts and known gaps, with the failed attempt in its history; the queue, the entry view and
``/v1/reviews`` name the schema actually used (an agent's assignment too) and why the entry
waits for review."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from factdiff.compression.components import ladder_from_spec
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import EntryStatus, open_store
from tests.conftest import worked
from tests.integration.service_helpers import client, make_keys, running_api

CALL_TIME = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
ONE_FAILURE = DemotionSettings(
    ladder=ladder_from_spec("naive:20"), retry=RetryPolicy(max_attempts=1)
)


def _in_review(target: str, agent: str, text: str, **options: Any) -> str:
    """An entry of ``agent`` sent to review by one failed pass (``options`` go to ``add``)."""
    old = datetime.now(UTC) - timedelta(days=30)
    settings = options.pop("settings", ONE_FAILURE)
    with open_store(target) as store:
        entry_id = store.add(
            agent, text, now=old, occurred_at=CALL_TIME, last_used_at=old, **options
        )
        Demoter(store, settings).run(datetime.now(UTC), agent=agent)
        assert store.get(entry_id).status is EntryStatus.REVIEW
    return entry_id


def test_an_edited_entry_shows_its_current_state_with_history_below(target: str) -> None:
    failed = _in_review(target, "alice", worked("source"), schema="customer_service")
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        before = ops.get(f"/v1/entries/{failed}/view").json()
        failed_summary = before["summary"]["text"]
        assert "disputed_amount" in {item["field"] for item in before["diff"]["missing"]}
        edited = ops.post(f"/v1/reviews/{failed}/edit", json={"summary": worked("faithful")})
        assert edited.status_code == 200, edited.text
        view = ops.get(f"/v1/entries/{failed}/view").json()
    assert view["entry"]["tier"] == "warm"
    assert view["summary"]["text"] == worked("faithful") != failed_summary
    assert view["source"]["text"] == worked("source")
    assert view["facts_from"] == "warm record"
    assert view["diff"]["missing"] == view["diff"]["changed"] == view["diff"]["added"] == []
    assert before["current"]["state"] == "hot"
    assert view["current"]["state"] == "warm"
    assert view["current"]["attempt_no"] == 2
    assert view["current"]["outcome"] in ("clean", "acceptable_with_notes")
    assert "invoice_id" in view["current"]["facts"]
    assert view["current"]["known_gaps"] == []
    assert view["review"] is None
    narrative_facts = {s["lead"]["field"] for s in view["summary"]["segments"] if s["lead"]}
    assert "disputed_amount" in narrative_facts
    assert all(s["lead"]["verdict"] == "kept" for s in view["summary"]["segments"] if s["lead"])
    (earlier,) = view["history"]
    assert (earlier["attempt_no"], earlier["outcome"]) == (1, "failed")
    assert earlier["summary"] == failed_summary
    assert "disputed_amount" in {item["field"] for item in earlier["diff"]["missing"]}


def test_an_approved_entry_shows_its_known_gaps(target: str) -> None:
    failed = _in_review(target, "alice", worked("source"), schema="customer_service")
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        approved = ops.post(f"/v1/reviews/{failed}/approve", json={"reason": "tracked"})
        assert approved.status_code == 200, approved.text
        view = ops.get(f"/v1/entries/{failed}/view").json()
    gaps = {gap["field"] for gap in view["current"]["known_gaps"]}
    assert "disputed_amount" in gaps
    assert {item["field"] for item in view["diff"]["missing"]} >= gaps - {
        item["field"] for item in view["diff"]["changed"]
    }
    assert view["current"]["outcome"] == "acceptable_with_notes"
    assert [a["outcome"] for a in view["history"]] == ["failed"]
    coverage = view["current"]["coverage"]  # the approval recorded its check's coverage
    assert 0 < coverage["verified"] <= coverage["sentences"]
    assert isinstance(coverage["unverified"], list)


@pytest.mark.parametrize("assign", ["agent", "tag"])
def test_review_shows_the_schema_used_and_why(target: str, assign: str) -> None:
    with open_store(target) as store:
        tag = "calls" if assign == "tag" else None
        store.set_agent_schema("carol", "customer_service", tag)
    assigned = _in_review(target, "carol", worked("source"), tags=("calls",))
    refused = _in_review(
        target,
        "dave",
        "Invoice INV-1 for $5, due 2026-04-01, long enough to be refused.",
        settings=DemotionSettings(max_source_bytes=20),
    )
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.operator) as ops:
        queue = ops.get("/v1/review-queue").json()
        rows = {row["entry"]["id"]: row for row in queue["reviews"]}
        views = {i: ops.get(f"/v1/entries/{i}/view").json() for i in (assigned, refused)}
        reviews = {r["entry"]["id"]: r for r in ops.get("/v1/reviews").json()["reviews"]}
        by_schema = ops.get("/v1/review-queue", params={"schema": "customer_service"}).json()
    expected = {"name": "customer_service", "version": 2, "from": "agent"}
    for document in (rows[assigned], views[assigned], reviews[assigned]):
        assert document["schema"] == expected
        assert document["entry"]["schema"] is None  # nothing of its own: its agent's
        assert document["review"]["reason"] == "max_attempts"
        assert "1 of 1" in document["review"]["detail"]
    for document in (rows[refused], views[refused], reviews[refused]):
        assert document["schema"] == {"name": "generic", "version": 1, "from": "default"}
        assert document["review"]["reason"] == "refused_input"
        assert "compression limit" in document["review"]["detail"]
    assert queue["counts"]["schema"] == {"customer_service": 1, "generic": 1}
    assert [row["entry"]["id"] for row in by_schema["reviews"]] == [assigned]
