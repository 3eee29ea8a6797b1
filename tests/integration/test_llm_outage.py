"""Issue 9, defects 3 and 4 and the outage acceptance: provider trouble never spends a
verification attempt or climbs the ladder, backs off on its own schedule (Retry-After first),
reaches review only past its own budget (``provider_unavailable``), and a retry after an
error still names the facts the last verified attempt lost. Real SDKs, both wire formats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.engine import Rung
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import EntryStatus, EventType, MemoryStore, Tier, open_store
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest, ScriptedLLMServer
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)
FAITHFUL = worked("faithful")
FLUENT = worked("fluent")


def demoter(
    store: MemoryStore, server: ScriptedLLMServer, provider: str, **retry: object
) -> Demoter:
    summarizer = LLMSummarizer(
        spec(server, provider, "test-summarizer"), policy=FAST, prices=PRICES
    )
    ladder = (
        Rung(summarizer, budget_words=60),
        Rung(summarizer, budget_words=90, strictness=1),
        Rung(summarizer, budget_words=120, strictness=2),
    )
    policy = RetryPolicy(max_attempts=3, **retry)  # type: ignore[arg-type]
    return Demoter(store, DemotionSettings(ladder=ladder, retry=policy))


def add(store: MemoryStore, count: int = 1) -> list[str]:
    return [
        store.add(
            "support-bot",
            worked("source"),
            now=T0,
            occurred_at=T0,
            schema="customer_service",
            last_used_at=T0,
        )
        for _ in range(count)
    ]


def reviews(store: MemoryStore) -> int:
    return len(list(store.events(type=EventType.ESCALATED_TO_REVIEW)))


OUTAGES = {
    "500": Answer.server_error(500),
    "529": Answer.overloaded(),
    "drop": Answer.drop(),
    "429": Answer.rate_limited(),
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", list(OUTAGES))
def test_an_outage_of_three_passes_spends_nothing_and_recovery_starts_at_rung_0(
    tmp_path: Path, provider: str, kind: str
) -> None:
    outage = OUTAGES[kind]
    state = {"up": False}

    def responder(_: RecordedRequest) -> Answer:
        return Answer.text(FAITHFUL) if state["up"] else outage

    with open_store(tmp_path / "m.db") as store, scripted(responder=responder) as server:
        ids = add(store, 4)
        run = demoter(store, server, provider)
        moment = NOW
        for number in (1, 2, 3):
            report = run.run(moment, concurrency=2)
            assert report.counts == {"error": 4}
            for entry_id in ids:
                entry = store.get(entry_id)
                assert (entry.tier, entry.status) == (Tier.HOT, EntryStatus.ACTIVE)
                assert entry.attempt_count == 0  # no verified attempt spent
                assert (entry.error_attempts, entry.error_streak) == (number, number)
                assert entry.next_attempt_at is not None
                assert entry.next_attempt_at <= moment + timedelta(hours=1, minutes=15)
            assert reviews(store) == 0
            moment = max(at for i in ids if (at := store.get(i).next_attempt_at) is not None)
        state["up"] = True
        assert run.run(moment).counts == {"clean": 4}
        for entry_id in ids:
            entry = store.get(entry_id)
            assert entry.tier is Tier.WARM
            assert entry.warm is not None
            assert entry.warm.meta.rung == 0  # rung 0: the outage climbed nothing
            assert entry.warm.meta.budget_words == 60
            attempts = store.attempts(entry_id)
            assert [a.outcome.value for a in attempts] == ["error"] * 3 + ["clean"]
            assert {a.failure_class for a in attempts[:3]} == {OUTAGE_CLASS[kind]}
            assert attempts[-1].rung == 0
        assert reviews(store) == 0


OUTAGE_CLASS = {"500": "transient", "529": "transient", "drop": "transient", "429": "rate_limited"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_retry_after_is_honoured_as_given(tmp_path: Path, provider: str) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(Answer.rate_limited(retry_after=30), Answer.text(FAITHFUL)) as server,
    ):
        (entry_id,) = add(store)
        run = demoter(store, server, provider)
        assert run.run(NOW).counts == {"error": 1}
        entry = store.get(entry_id)
        assert entry.next_attempt_at == NOW + timedelta(seconds=30)  # not an hour of backoff
        assert run.run(NOW + timedelta(seconds=29)).counts == {}
        assert run.run(NOW + timedelta(seconds=30)).counts == {"clean": 1}
        warm = store.get(entry_id).warm
        assert warm is not None
        assert (warm.meta.rung, warm.meta.budget_words) == (0, 60)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_past_the_provider_error_budget_the_entry_goes_to_review_as_provider_unavailable(
    tmp_path: Path, provider: str
) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(responder=lambda _r: Answer.server_error(503)) as server,
    ):
        (entry_id,) = add(store)
        run = demoter(store, server, provider, provider_error_budget=3, error_budget=2)
        moment = NOW
        for _ in range(3):
            run.run(moment)
            entry = store.get(entry_id)
            moment = entry.next_attempt_at or moment
        entry = store.get(entry_id)
        assert entry.status is EntryStatus.REVIEW
        assert entry.attempt_count == 0
        (event,) = store.events(entry_id, type=EventType.ESCALATED_TO_REVIEW)
        assert event.payload["reason"] == "provider_unavailable"
        assert "3 error attempts in a row" in event.payload["detail"]


def test_error_backoff_grows_on_its_own_schedule_not_the_ladders(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(responder=lambda _r: Answer.server_error(500)) as server,
    ):
        (entry_id,) = add(store)
        run = demoter(
            store,
            server,
            "openai",
            error_base_delay=timedelta(minutes=1),
            error_max_delay=timedelta(minutes=3),
        )
        moment, delays = NOW, []
        for _ in range(4):
            run.run(moment)
            after = store.get(entry_id).next_attempt_at
            assert after is not None
            delays.append((after - moment).total_seconds())
            moment = after
    # 1 min, 2 min, then capped at 3 min; each with at most 25% jitter
    for delay, base in zip(delays, (60, 120, 180, 180), strict=True):
        assert base <= delay <= base * 1.25


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_retry_after_an_error_still_names_the_facts_the_last_verified_attempt_lost(
    tmp_path: Path, provider: str
) -> None:
    """lossy summary -> 500 outage -> retry: the retry prompt lists the lost facts."""
    script = [Answer.text(FLUENT), *[Answer.server_error(500)] * 3, Answer.text(FAITHFUL)]
    with open_store(tmp_path / "m.db") as store, scripted(*script) as server:
        (entry_id,) = add(store)
        run = demoter(store, server, provider)
        moment = NOW
        for expected in ({"failed": 1}, {"error": 1}, {"clean": 1}):
            assert run.run(moment).counts == expected
            moment = store.get(entry_id).next_attempt_at or moment
        first, *_, last = server.requests
        attempts = store.attempts(entry_id)
    assert "MUST state" not in first.last_user_message
    kept = last.last_user_message.split("Entry:")[0]
    assert "MUST state" in kept
    for stated in ("cust_482", "INV-9182", "CM-3392", "2026-03-25"):
        assert stated in kept, stated
    assert [a.outcome.value for a in attempts] == ["failed", "error", "clean"]
    assert attempts[-1].rung == 1  # one verified failure: the second rung
    assert attempts[0].must_keep  # stored with the failed attempt, as facts
