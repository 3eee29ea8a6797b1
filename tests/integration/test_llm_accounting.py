"""Issue 9, defects 5 and 8: every model call is accounted for (model, role, tokens, cost,
outcome), error attempts included; unknown prices stay unknown; reports are honest about
time; a context too long for the model goes to review at once without spending an attempt.
Real SDKs against the scripted server, both wire formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.engine import Rung
from factdiff.compression.pipeline import compress
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.errors import TransientProviderError
from factdiff.extraction.llm import LLMExtractor
from factdiff.providers import CallPolicy, Price, PriceTable
from factdiff.schema.model import FactSchema
from factdiff.store import AttemptOutcome, EntryStatus, EventType, MemoryStore, Tier, open_store
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest, RulesOracle
from tests.conftest import ROOT, worked
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

SOURCE = worked("source")
FAITHFUL = worked("faithful")
T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


def add(store: MemoryStore) -> str:
    return store.add(
        "a", SOURCE, now=T0, occurred_at=T0, schema="customer_service", last_used_at=T0
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_call_of_an_attempt_is_stored_with_its_model_role_tokens_and_cost(
    tmp_path: Path, provider: str, customer_service: FactSchema
) -> None:
    """A refused summary (billed) is an error attempt that still records its tokens; the
    retry's extractor calls are rows of their own, never folded into the summarizer's."""
    oracle = RulesOracle(customer_service)  # an honest extractor; the summary is the entry
    answers = iter([Answer.refusal("no").with_usage(300, 7)])

    def responder(request: RecordedRequest) -> Answer:
        if not request.structured:
            refused = next(answers, None)
            if refused is not None:
                return refused
        return oracle(request).with_usage(1000, 100)

    with open_store(tmp_path / "m.db") as store, scripted(responder=responder) as server:
        entry_id = add(store)
        extractor = LLMExtractor(
            spec(server, provider, "test-extractor"), policy=FAST, prices=PRICES
        )
        summarizer = LLMSummarizer(
            spec(server, provider, "test-summarizer"), policy=FAST, prices=PRICES
        )
        settings = DemotionSettings(
            ladder=(Rung(summarizer, budget_words=80),), extractor=extractor
        )
        demoter = Demoter(store, settings)
        assert demoter.run(NOW).counts == {"error": 1}
        moment = store.get(entry_id).next_attempt_at
        assert moment is not None
        report = demoter.run(moment)
        assert report.counts == {"clean": 1}
        error, clean = store.attempts(entry_id)
        calls = store.model_calls(entry_id)
        stats = store.stats()
    assert error.outcome is AttemptOutcome.ERROR
    assert error.failure_class == "refused"
    # the source extraction (1000/100) and the refused summary (300/7) were both billed
    assert (error.tokens_in, error.tokens_out) == (1300, 107)
    assert error.cost_usd == Decimal("0.0012") + Decimal("0.000928")
    summarizer_name, extractor_name = f"{provider}:test-summarizer", f"{provider}:test-extractor"
    assert [(n, c.role, c.model, c.outcome) for n, c in calls] == [
        (1, "extract_source", extractor_name, "ok"),
        (1, "summarize", summarizer_name, "refused"),
        (2, "summarize", summarizer_name, "ok"),
        (2, "extract_summary", extractor_name, "ok"),
    ]
    assert (clean.tokens_in, clean.tokens_out) == (2000, 200)  # the source came from the cache
    usage = {(row["model"], row["role"]): row for row in stats["model_usage"]}
    assert usage[(summarizer_name, "summarize")]["calls"] == 2
    assert usage[(summarizer_name, "summarize")]["failed_calls"] == 1
    assert usage[(extractor_name, "extract_source")]["tokens_in"] == 1000
    assert usage[(extractor_name, "extract_summary")]["cost_usd"] == "0.001200"
    by_role = {(row["model"], row["role"]) for row in report.usage}
    assert by_role == {(summarizer_name, "summarize"), (extractor_name, "extract_summary")}


def test_an_unknown_price_is_unknown_not_zero(tmp_path: Path) -> None:
    unpriced = PriceTable({"openai:test-extractor": Price(Decimal(1), Decimal(2))})
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(responder=lambda _r: Answer.text(FAITHFUL).with_usage(500, 50)) as server,
    ):
        entry_id = add(store)
        summarizer = LLMSummarizer(spec(server, "openai", "mystery"), policy=FAST, prices=unpriced)
        Demoter(store, DemotionSettings(ladder=(Rung(summarizer, budget_words=80),))).run(NOW)
        (attempt,) = store.attempts(entry_id)
        stats = store.stats()
    assert attempt.tokens_in == 500
    assert attempt.cost_usd is None
    assert stats["usage"][0]["cost_usd"] is None
    assert stats["model_usage"][0]["cost_usd"] is None


@pytest.mark.parametrize("provider", PROVIDERS)
def test_compress_json_counts_the_source_extraction(
    provider: str, customer_service: FactSchema
) -> None:
    oracle = RulesOracle(customer_service)
    with scripted(responder=lambda r: oracle(r).with_usage(100, 10)) as server:
        extractor = LLMExtractor(spec(server, provider), policy=FAST, prices=PRICES)
        summarizer = LLMSummarizer(
            spec(server, provider, "test-summarizer"), policy=FAST, prices=PRICES
        )
        result = compress(
            SOURCE, customer_service, (Rung(summarizer, budget_words=80),), extractor=extractor
        )
    data: Any = result.to_json()
    usage = data["usage"]
    assert isinstance(usage, dict)
    assert (usage["calls"], usage["tokens_in"], usage["tokens_out"]) == (3, 300, 30)
    roles = [c["role"] for c in usage["model_calls"]]
    assert roles == ["extract_source", "summarize", "extract_summary"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_context_too_long_goes_to_review_at_once_without_spending_an_attempt(
    tmp_path: Path, provider: str
) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(Answer.context_too_long(), Answer.text("never")) as server,
    ):
        entry_id = add(store)
        summarizer = LLMSummarizer(spec(server, provider, "test-summarizer"), policy=FAST)
        report = Demoter(store, DemotionSettings(ladder=(Rung(summarizer),))).run(NOW)
        entry = store.get(entry_id)
        (event,) = store.events(entry_id, type=EventType.ESCALATED_TO_REVIEW)
        assert server.request_count == 1
    assert report.counts == {"error": 1, "escalated": 1}
    assert (entry.tier, entry.status) == (Tier.HOT, EntryStatus.REVIEW)
    assert (entry.attempt_count, entry.error_attempts) == (0, 1)
    assert event.payload["reason"] == "context_too_long"
    assert "split the entry" in event.payload["detail"] or "larger" in event.payload["detail"]


def test_concurrent_pass_reports_wall_time_not_the_sum_of_entries(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "m.db") as store,
        scripted(responder=lambda _r: Answer.text(FAITHFUL).after(0.3)) as server,
    ):
        for _ in range(16):
            add(store)
        summarizer = LLMSummarizer(spec(server, "openai", "test-summarizer"), policy=FAST)
        settings = DemotionSettings(ladder=(Rung(summarizer, budget_words=80),))
        report = Demoter(store, settings).run(NOW, concurrency=16)
    seconds = report.seconds
    assert report.counts == {"clean": 16}
    assert seconds["summarize"] <= seconds["wall"]
    assert seconds["summarize"] >= 0.3
    assert seconds["wall"] < 16 * 0.3  # the entries overlapped
    assert all(0 <= seconds[k] <= seconds["wall"] for k in seconds)


def test_a_quota_pause_still_prints_the_json_report(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with open_store(db) as store:
        for _ in range(3):
            add(store)
    with scripted(responder=lambda _r: Answer.quota_exhausted()) as server:
        env = dict(
            os.environ,
            OPENAI_BASE_URL=server.openai_url,
            OPENAI_API_KEY="sk-test-not-a-key",
            FACTDIFF_SUMMARIZER="openai:test-summarizer",
        )
        run = subprocess.run(
            [
                str(Path(sys.executable).parent / "factdiff"),
                "demote",
                "--db",
                str(db),
                "--now",
                NOW.isoformat(),
                "--concurrency",
                "2",
                "--json",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert "quota" in report["paused"]
    assert report["counts"] == {}
    assert "wall" in report["seconds"]
    assert run.stderr.strip().startswith("error:")
    with open_store(db) as store:
        assert store.leases() == []
        assert all(e.attempt_count == 0 for e in store.entries())


def test_requests_per_call_come_from_the_policy(customer_service: FactSchema) -> None:
    policy = CallPolicy(deadline_s=5, max_attempts=2, backoff_s=0)
    with scripted(*[Answer.server_error(500)] * 3) as server:
        summarizer = LLMSummarizer(spec(server, "openai", "test-summarizer"), policy=policy)
        with pytest.raises(TransientProviderError, match="500"):
            compress(SOURCE, customer_service, (Rung(summarizer),))
        assert server.request_count == 2


def test_error_attempts_and_model_calls_on_both_backends(target: str) -> None:
    """An outage then a clean pass, on SQLite and PostgreSQL: the same rows and counts."""
    script = [Answer.server_error(503)] * 3 + [Answer.text(FAITHFUL).with_usage(40, 4)]
    with open_store(target) as store, scripted(*script) as server:
        entry_id = add(store)
        summarizer = LLMSummarizer(
            spec(server, "openai", "test-summarizer"), policy=FAST, prices=PRICES
        )
        demoter = Demoter(store, DemotionSettings(ladder=(Rung(summarizer, budget_words=80),)))
        assert demoter.run(NOW, concurrency=2).counts == {"error": 1}
        entry = store.get(entry_id)
        assert (entry.attempt_count, entry.error_attempts, entry.error_streak) == (0, 1, 1)
        assert entry.next_attempt_at is not None
        assert demoter.run(entry.next_attempt_at).counts == {"clean": 1}
        entry = store.get(entry_id)
        assert (entry.attempt_count, entry.error_attempts, entry.error_streak) == (1, 1, 0)
        attempts = store.attempts(entry_id)
        calls = store.model_calls(entry_id)
        usage = store.stats()["model_usage"]
        assert store.verify() == []
    assert [(a.attempt_no, a.outcome.value, a.failure_class) for a in attempts] == [
        (1, "error", "transient"),
        (2, "clean", None),
    ]
    assert [(n, c.outcome, c.http_calls) for n, c in calls] == [(1, "transient", 3), (2, "ok", 1)]
    (row,) = usage
    assert (row["calls"], row["failed_calls"], row["http_calls"]) == (2, 1, 4)
    assert (row["tokens_in"], row["tokens_out"]) == (40, 4)
