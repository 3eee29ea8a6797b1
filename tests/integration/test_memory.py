"""``factdiff.Memory``: one agent's memory, sync and async, on both backends."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC, datetime, timedelta

import pytest

from factdiff import Memory
from factdiff.errors import InputError
from factdiff.store import EntryNotFound, Tier
from tests.conftest import worked

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
REFUND = (
    "Refund of $1,249.00 for order 88213 approved; customer Irene Costa was told on 2026-03-14."
)


def memory(target: str, agent: str = "support-bot") -> Memory:
    return Memory(target, agent=agent, schema="customer_service", clock=lambda: NOW)


def test_add_get_search_context_forget(target: str) -> None:
    with memory(target) as mine, memory(target, "sales-bot") as theirs:
        entry_id = mine.add(REFUND, tags=("refunds",))
        other_id = theirs.add("Order 88213 was also quoted to a sales lead.")
        entry = mine.get(entry_id)
        assert (entry.agent_id, entry.tier, entry.content) == ("support-bot", Tier.HOT, REFUND)
        hits = mine.search("order 88213")
        assert [hit.entry_id for hit in hits] == [entry_id]  # never the other agent's
        by_query = mine.context("order 88213")
        by_ids = mine.context([entry_id])
        assert by_query.hash == by_ids.hash
        assert "88213" in by_ids.text
        for call in (
            lambda: mine.get(other_id),
            lambda: mine.context([other_id]),
            lambda: mine.forget(other_id),
        ):
            with pytest.raises(EntryNotFound):
                call()
        (gone,) = mine.forget(entry_id, reason="asked")
        assert gone.newly_erased
        assert mine.search("order 88213") == []
        assert theirs.get(other_id).content is not None


def test_demote_compresses_with_verification(target: str) -> None:
    with memory(target) as mine:
        entry_id = mine.add(worked("source"), occurred_at=NOW - timedelta(days=30))
        assert mine.demote().processed == 0  # added now: not dormant for the default 14 days
        report = mine.demote(older_than=timedelta(0))
        assert report.counts == {"clean": 1}  # the offline summarizer keeps every fact
        assert mine.get(entry_id).tier == Tier.WARM
        (hit,) = mine.search("INV-9182")
        assert (hit.entry_id, hit.tier, hit.known_gaps) == (entry_id, "warm", ())
        assert hit.facts is not None
        assert "INV-9182" in json.dumps(hit.facts.to_json())  # the source's facts, too


def test_async_twins_and_any_thread(target: str) -> None:
    mine = memory(target)

    async def main() -> list[str]:
        ids = await asyncio.gather(*(mine.aadd(f"Ticket T-{n:04d} opened.") for n in range(20)))
        hits = await mine.asearch("T-0007", k=3)
        assert hits[0].entry_id == ids[7]
        assert (await mine.aget(ids[7])).content == "Ticket T-0007 opened."
        assert (await mine.acontext([ids[0]])).entries
        assert (await mine.ademote(older_than=timedelta(0))).processed == 20
        await mine.aforget(ids[0])
        return list(ids)

    ids = asyncio.run(main())
    seen: list[str] = []
    other = threading.Thread(target=lambda: seen.append(mine.get(ids[1]).id))
    other.start()
    other.join()
    assert seen == [ids[1]]  # a SQLite memory serves any thread
    with pytest.raises(EntryNotFound):
        mine.get(ids[0])
    mine.close()
    mine.close()  # idempotent


def test_an_agent_is_required() -> None:
    with pytest.raises(InputError, match="give the agent"):
        Memory(":memory:", agent=" ")


def test_now_and_demotion_settings_are_the_ones_demote_uses(target: str) -> None:
    with memory(target) as mine:
        assert mine.now() == NOW
        assert mine.demotion_settings().older_than == timedelta(days=14)  # the default
        assert mine.demotion_settings(older_than="12h").older_than == timedelta(hours=12)
        assert mine.demotion_settings(older_than=0).older_than == timedelta(0)
        with pytest.raises(InputError, match="older_than"):
            mine.demotion_settings(older_than="soon")
