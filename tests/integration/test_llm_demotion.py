"""Demotion with an LLM summarizer over the real SDKs and the scripted server: provider
failures become attempts and events, Retry-After sets the backoff, quota pauses the pass."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from factdiff.compression.pipeline import Rung
from factdiff.demotion.demoter import Demoter, DemotionPaused, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.store import AttemptOutcome, EntryStatus, EventType, MemoryStore, Tier, open_store
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

pytest.importorskip("openai")
pytest.importorskip("anthropic")

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


def demoter(store: MemoryStore, server: object, provider: str) -> Demoter:
    summarizer = LLMSummarizer(
        spec(server, provider, "test-summarizer"),  # type: ignore[arg-type]
        policy=FAST,
        prices=PRICES,
    )
    ladder = (Rung(summarizer, budget_ratio=0.6), Rung(summarizer, budget_ratio=1.0))
    return Demoter(store, DemotionSettings(ladder=ladder, retry=RetryPolicy(max_attempts=3)))


def add(store: MemoryStore) -> str:
    return store.add(
        "support-bot",
        worked("source"),
        now=T0,
        occurred_at=T0,
        schema="customer_service",
        last_used_at=T0,
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_faithful_llm_summary_is_demoted_with_tokens_and_cost(
    tmp_path: Path, provider: str
) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(Answer.text(worked("faithful")).with_usage(400, 120)) as server,
    ):
        entry_id = add(store)
        report = demoter(store, server, provider).run(NOW)
        assert report.counts == {"clean": 1}
        (attempt,) = store.attempts(entry_id)
        assert attempt.summarizer.endswith("test-summarizer")
        assert attempt.tokens_in == 400
        assert attempt.tokens_out == 120
        assert attempt.cost_usd is not None
        assert attempt.cost_usd > 0
        assert store.get(entry_id).tier is Tier.WARM
        (usage,) = store.stats()["usage"]
        assert usage["tokens_in"] == 400
        assert usage["tokens_out"] == 120
        assert float(usage["cost_usd"]) == float(attempt.cost_usd)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_summary_that_drops_facts_stays_hot(tmp_path: Path, provider: str) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(Answer.text(worked("fluent"))) as server,
    ):
        entry_id = add(store)
        assert demoter(store, server, provider).run(NOW).counts == {"failed": 1}
        assert store.get(entry_id).content == worked("source")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_retry_after_sets_the_next_attempt(tmp_path: Path, provider: str) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(Answer.rate_limited(retry_after=86_400)) as server,
    ):
        entry_id = add(store)
        report = demoter(store, server, provider).run(NOW)
        assert report.counts == {"error": 1}
        entry = store.get(entry_id)
        assert entry.tier is Tier.HOT
        assert entry.status is EntryStatus.ACTIVE
        assert entry.next_attempt_at is not None
        assert entry.next_attempt_at >= NOW + timedelta(days=1)
        (attempt,) = store.attempts(entry_id)
        assert attempt.outcome is AttemptOutcome.ERROR
        assert attempt.error is not None
        assert attempt.error.startswith("rate_limited")
        (event,) = store.events(entry_id, type=EventType.COMPRESSION_FAILURE)
        assert event.payload["failure_class"] == "rate_limited"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_answer_is_an_error_attempt_never_a_summary(
    tmp_path: Path, provider: str
) -> None:
    def cut(_: object) -> Answer:
        return Answer.truncated("Customer cust_482 (Acme Corp) called at")

    with open_store(tmp_path / "m.db") as store, scripted(responder=cut) as server:
        entry_id = add(store)
        demoter(store, server, provider).run(NOW)
        (attempt,) = store.attempts(entry_id)
        assert attempt.error is not None
        assert attempt.error.startswith("truncated")
        assert attempt.failure_class == "truncated"
        entry = store.get(entry_id)
        assert entry.tier is Tier.HOT
        assert (entry.attempt_count, entry.error_attempts) == (0, 1)  # no rung spent
        budgets = [r.body["max_tokens"] for r in server.requests]
        assert budgets == [256, 512, 1024, 2048, 4096, 8192, 16384]  # raised, bounded


@pytest.mark.parametrize(
    "answer", [Answer.quota_exhausted(), Answer.unauthorized()], ids=["quota", "auth"]
)
def test_quota_or_credentials_pause_the_pass_without_using_attempts(
    tmp_path: Path, answer: Answer
) -> None:
    with open_store(tmp_path / "m.db") as store, scripted(answer) as server:
        ids = [add(store), add(store)]
        with pytest.raises(DemotionPaused, match="no attempt was used"):
            demoter(store, server, "openai").run(NOW)
        for entry_id in ids:
            assert store.attempts(entry_id) == []
            assert store.get(entry_id).attempt_count == 0


class QuotaSummarizer:
    """Every call fails the way a 429 insufficient_quota does."""

    identity = "quota"

    def summarize(self, request: object) -> object:
        from factdiff.errors import QuotaExhausted

        raise QuotaExhausted("insufficient_quota", model="openai:test-summarizer")


def test_quota_exhaustion_stops_the_worker_pool_and_releases_its_claims(tmp_path: Path) -> None:
    import threading

    from factdiff.demotion.worker import Worker, WorkerSettings

    db = str(tmp_path / "w.db")
    with open_store(db) as store:
        ids = [add(store) for _ in range(4)]
    settings = DemotionSettings(ladder=(Rung(QuotaSummarizer()),))  # type: ignore[arg-type]
    worker = Worker(
        db, WorkerSettings(concurrency=2, lease_seconds=30, poll_seconds=0.05), settings
    )
    runner = threading.Thread(target=worker.run)
    runner.start()
    runner.join(60)
    assert not runner.is_alive()  # it stopped by itself
    assert worker.report.counts["paused"] >= 1
    with open_store(db) as store:
        for entry_id in ids:
            assert store.attempts(entry_id) == []
            assert store.get(entry_id).tier is Tier.HOT
        assert store.leases() == []


def outcomes(store: MemoryStore, ids: list[str]) -> list[tuple[object, ...]]:
    """Per entry: tier, attempt outcomes, event types and warm content (ids aside)."""
    return [
        (
            store.get(i).tier,
            [a.outcome for a in store.attempts(i)],
            [e.type for e in store.events(i)],
            store.get(i).content,
        )
        for i in ids
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_concurrent_pass_overlaps_requests_and_matches_the_sequential_one(
    tmp_path: Path, provider: str
) -> None:
    def answer(_: object) -> Answer:
        return Answer.text(worked("faithful")).after(0.2)

    results = []
    for name, concurrency in (("seq", 1), ("conc", 8)):
        with (
            open_store(tmp_path / f"{name}.db") as store,
            scripted(responder=answer) as server,
        ):
            ids = [add(store) for _ in range(8)]
            run = demoter(store, server, provider)
            report = run.run(NOW, concurrency=concurrency)
            assert report.counts == {"clean": 8}
            assert server.request_count == 8
            assert {r.entry_id for r in report.results} == set(ids)
            results.append((outcomes(store, ids), server.max_in_flight))
            assert all(store.get(i).tier is Tier.WARM for i in ids)
    (sequential, seq_overlap), (concurrent, conc_overlap) = results
    assert concurrent == sequential
    assert seq_overlap == 1
    assert conc_overlap > 1


def test_concurrent_pass_fails_and_retries_like_the_sequential_one(tmp_path: Path) -> None:
    answers = [Answer.text(worked("fluent")), Answer.rate_limited(retry_after=86_400)] * 3
    results = []
    for name, concurrency in (("seq", 1), ("conc", 4)):
        with (
            open_store(tmp_path / f"{name}.db") as store,
            scripted(*answers) as server,
        ):
            ids = [add(store) for _ in range(6)]
            run = demoter(store, server, "openai")
            report = run.run(NOW, concurrency=concurrency)
            results.append(report.counts)
            spent = []
            for entry_id in ids:
                entry = store.get(entry_id)
                assert entry.tier is Tier.HOT
                spent.append((entry.attempt_count, entry.error_attempts))
                assert entry.next_attempt_at is not None
            assert sorted(spent) == [(0, 1)] * 3 + [(1, 0)] * 3  # a 429 spends no attempt
    assert results[0] == results[1] == {"failed": 3, "error": 3}


def test_concurrent_pass_pauses_on_quota_without_using_attempts(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(responder=lambda _: Answer.quota_exhausted()) as server,
    ):
        ids = [add(store) for _ in range(5)]
        with pytest.raises(DemotionPaused, match="no attempt was used"):
            demoter(store, server, "openai").run(NOW, concurrency=4)
        for entry_id in ids:
            assert store.attempts(entry_id) == []
            assert store.get(entry_id).attempt_count == 0
