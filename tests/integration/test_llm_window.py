"""Issue 9, defect 7: every limit is settable, the window of work in flight is continuous
(no batch waits for its slowest entry), and offline extraction leaves the event loop for
worker processes when many entries are in flight. Real SDKs against the scripted server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.engine import Rung
from factdiff.compression.executor import Work, default_extract_workers
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.providers import set_provider_limit
from factdiff.settings import resolve_settings
from factdiff.store import MemoryStore, Tier, WarmView, open_store
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, scripted, spec

T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)
SLOW = "cust_999"


def narrative(warm: WarmView | None) -> str | None:
    return warm.narrative if warm else None


def add(store: MemoryStore, text: str, used: datetime = T0) -> str:
    return store.add(
        "a", text, now=T0, occurred_at=T0, schema="customer_service", last_used_at=used
    )


@pytest.fixture
def unbounded() -> Iterator[None]:
    yield
    set_provider_limit("openai", None)
    set_provider_limit("anthropic", None)


def test_the_in_flight_bound_per_provider_comes_from_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unbounded: None
) -> None:
    with scripted(responder=lambda _r: Answer.text(worked("faithful")).after(0.2)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        settings = resolve_settings(
            {"summarizer": "openai:test-summarizer"}, {"FACTDIFF_IN_FLIGHT": "2"}
        )
        with open_store(tmp_path / "m.db") as store:
            for _ in range(10):
                add(store, worked("source"))
            report = Demoter(store, DemotionSettings.from_settings(settings)).run(
                NOW, concurrency=8
            )
    assert report.counts == {"clean": 10}
    assert server.max_in_flight == 2


def test_the_window_is_continuous_one_slow_entry_never_holds_the_others(
    tmp_path: Path,
) -> None:
    """One answer takes 6 s; the other 39 (0.1 s each) keep flowing through the other
    three slots meanwhile, instead of waiting for the slow one's batch to finish."""
    arrivals: list[tuple[float, bool]] = []
    lock = threading.Lock()

    def responder(request: RecordedRequest) -> Answer:
        slow = SLOW in request.last_user_message
        with lock:
            arrivals.append((time.monotonic(), slow))
        return Answer.text(worked("faithful")).after(6.0 if slow else 0.1)

    with scripted(responder=responder) as server, open_store(tmp_path / "m.db") as store:
        add(store, worked("source").replace("cust_482", SLOW), T0 - timedelta(days=1))  # first
        for _ in range(39):
            add(store, worked("source"))
        summarizer = LLMSummarizer(spec(server, "openai", "test-summarizer"), policy=FAST)
        settings = DemotionSettings(ladder=(Rung(summarizer, budget_words=80),))
        report = Demoter(store, settings).run(NOW, concurrency=4)
        assert server.max_in_flight == 4
    assert report.counts["clean"] + report.counts.get("failed", 0) == 40
    (slow_at,) = [at for at, slow in arrivals if slow]
    during = [at for at, slow in arrivals if not slow and slow_at < at < slow_at + 6.0]
    assert len(during) >= 35  # a batch of 4 x C = 16 would have let at most 15 through


def test_many_entries_in_flight_extract_in_worker_processes(tmp_path: Path) -> None:
    """At concurrency 8 the offline extraction runs in a process pool; the outcomes are the
    ones a sequential pass gives."""
    assert default_extract_workers(1) == 0
    assert default_extract_workers(8) >= 1
    texts = [worked("source").replace("INV-9182", f"INV-{9000 + i}") for i in range(12)]
    outcomes = []
    for name, concurrency in (("seq", 1), ("pool", 8)):
        with open_store(tmp_path / f"{name}.db") as store:
            ids = [add(store, text) for text in texts]
            report = Demoter(store, DemotionSettings(older_than=timedelta(days=1))).run(
                NOW, concurrency=concurrency
            )
            outcomes.append(
                (
                    report.counts,
                    [(store.get(i).tier, narrative(store.get(i).warm)) for i in ids],
                )
            )
        if concurrency == 8:
            pids = Work.processes(default_extract_workers(8)).worker_pids()
            assert pids  # the shared pool did the extraction
    assert outcomes[0] == outcomes[1]
    assert all(tier is Tier.WARM for tier, _ in outcomes[1][1])
