"""``FactdiffSession``: the OpenAI Agents SDK's session protocol on both backends, against the
real ``agents`` package."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal, TypeVar

import pytest

from tests.extras import missing_extra

pytest.importorskip("agents", reason=missing_extra("agents", "openai-agents"))

from agents.memory import Session, SessionSettings

from factdiff import Memory
from factdiff.errors import InputError, UsageError
from factdiff.integrations.openai_agents import FactdiffSession
from factdiff.settings import Settings
from factdiff.store import EntryErased, MemoryStore, Tier

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from openai.types.responses import EasyInputMessageParam

T = TypeVar("T")
NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
REFUND = (
    "Refund of $1,249.00 for order 88213 approved; customer Irene Costa was told on 2026-03-14."
)
DEADLINE = "The refund for order 88213 must be paid by 2026-03-20."


def run(awaitable: Awaitable[T]) -> T:
    async def main() -> T:
        return await awaitable

    return asyncio.run(main())


def memory(target: str, agent: str = "support-bot", settings: Settings | None = None) -> Memory:
    """A memory whose clock stands still: items added in one millisecond keep their order."""
    return Memory(
        target, agent=agent, schema="customer_service", settings=settings, clock=lambda: NOW
    )


def said(role: Literal["user", "assistant"], text: str) -> EasyInputMessageParam:
    return {"role": role, "content": text}


def conversation() -> list[TResponseInputItem]:
    return [
        said("user", REFUND),
        said("assistant", DEADLINE),
        said("user", "Thanks. Anything else?"),
        said("assistant", "No, that is all."),
    ]


def text_of(item: Mapping[str, object]) -> str:
    """An item's ``content`` (the SDK's item type is a union of dicts without a common key)."""
    return str(item["content"])


def entry_ids(mine: Memory, session_id: str) -> list[str]:
    """The session's entries in conversation order (ids from one millisecond do not sort)."""
    tag = f"session:{session_id}"
    page = mine.run(lambda store: store.entry_page(agent=mine.agent, tag=tag))
    ordered = sorted(page.items, key=lambda entry: int(entry.metadata["session_position"]))
    return [entry.id for entry in ordered]


def test_items_round_trip_in_order_across_calls(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine)
        assert isinstance(session, Session)  # the SDK's runtime-checkable protocol
        items = conversation()
        for item in items:  # one call each, all in the same millisecond
            run(session.add_items([item]))
        run(session.add_items([]))
        assert run(session.get_items()) == items
        assert run(session.get_items(limit=2)) == items[-2:]
        assert run(session.get_items(limit=0)) == []
        assert run(FactdiffSession("conv-2", mine).get_items()) == []
        with pytest.raises(InputError, match="limit must be 0 or more"):
            run(session.get_items(limit=-1))
        stored = [mine.get(entry_id).content for entry_id in entry_ids(mine, "conv-1")]
        assert sorted(stored, key=str) == sorted(  # canonical JSON: sorted keys, no spaces
            json.dumps(item, sort_keys=True, separators=(",", ":")) for item in items
        )


def test_session_settings_limit_is_the_default(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine, session_settings={"limit": 3})
        assert session.session_settings == SessionSettings(limit=3)
        run(session.add_items(conversation()))
        assert run(session.get_items()) == conversation()[-3:]
        assert run(session.get_items(limit=1)) == conversation()[-1:]


def test_compact_keeps_recent_items_and_summarizes_the_rest(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine, keep_recent=2)
        run(session.add_items(conversation()))
        report = run(session.compact())
        assert report.counts == {"clean": 2}
        old, recent = entry_ids(mine, "conv-1")[:2], conversation()[2:]
        assert [mine.get(entry_id).tier for entry_id in old] == [Tier.WARM, Tier.WARM]
        summary, *verbatim = run(session.get_items())
        assert verbatim == recent
        assert summary == {"role": "system", "content": text_of(summary)}
        text = text_of(summary)
        assert text.startswith("Verified summary of 2 earlier items of this conversation")
        assert "inventory.money: 1249 USD" in text
        assert "payment_deadline: 2026-03-20" in text
        assert "known gaps:\n- none" in text
        context = mine.context(old)
        assert context.text in text
        assert text.endswith(f"context hash: {context.hash}")
        assert run(session.get_items(limit=1)) == recent[-1:]
        assert len(run(session.get_items(limit=3))) == 3  # the summary counts as one item
        assert run(session.compact()).counts == {}  # the recent ones stay verbatim


def test_compressed_runs_are_one_message_each(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine, keep_recent=0)
        run(session.add_items(conversation()))
        assert run(session.compact()).counts == {"clean": 4}
        (summary,) = run(session.get_items())
        assert "Verified summary of 4 earlier items" in text_of(summary)
        second = entry_ids(mine, "conv-1")[1]
        mine.run(lambda store: store.restore(second, NOW))  # back to hot: splits the run
        first, middle, last = run(session.get_items())
        assert "Verified summary of 1 earlier item of" in text_of(first)
        assert middle == conversation()[1]
        assert "Verified summary of 2 earlier items" in text_of(last)


def test_a_failed_compression_stays_verbatim(target: str) -> None:
    three_words = Settings(ladder="naive:3,naive:3")  # drops the amount, order and dates
    with memory(target, settings=three_words) as mine:
        session = FactdiffSession("conv-1", mine, keep_recent=0)
        run(session.add_items(conversation()[:1]))
        assert run(session.compact()).counts == {"failed": 1}
        assert run(session.get_items()) == conversation()[:1]
        assert run(session.compact()).counts == {}  # its next attempt waits for the backoff
        assert run(session.compact()).counts == {}
        (entry_id,) = entry_ids(mine, "conv-1")
        entry = mine.get(entry_id)
        assert (entry.tier, entry.attempt_count, entry.next_attempt_at is not None) == (
            Tier.HOT,
            1,
            True,
        )


def test_pop_item_returns_what_was_added_hot_or_compressed(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine, keep_recent=1)
        run(session.add_items(conversation()[:2]))
        assert run(session.compact()).counts == {"clean": 1}
        first, second = entry_ids(mine, "conv-1")
        assert run(session.pop_item()) == conversation()[1]  # hot
        assert run(session.pop_item()) == conversation()[0]  # warm: read back from cold
        assert run(session.pop_item()) is None
        assert run(session.get_items()) == []
        for entry_id in (first, second):
            with pytest.raises(EntryErased):  # forgotten: only a tombstone is left
                mine.get(entry_id)
        run(session.add_items(conversation()[2:]))  # positions go on from what is left
        assert run(session.get_items()) == conversation()[2:]


def test_clear_session_forgets_only_this_session(target: str) -> None:
    with memory(target) as mine, memory(target, "sales-bot") as theirs:
        session, other = FactdiffSession("conv-1", mine), FactdiffSession("conv-2", mine)
        elsewhere = FactdiffSession("conv-1", theirs)  # same session id, another agent
        for each in (session, other, elsewhere):
            run(each.add_items(conversation()[:2]))
        plain = mine.add("A note outside any session.")
        run(session.clear_session())
        assert run(session.get_items()) == []
        assert run(other.get_items()) == conversation()[:2]
        assert run(elsewhere.get_items()) == conversation()[:2]
        assert mine.get(plain).content == "A note outside any session."
        hits = mine.search("order 88213")
        assert sorted(hit.entry_id for hit in hits) == sorted(entry_ids(mine, "conv-2"))


def test_compact_after_compacts_inside_add_items(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine, keep_recent=2, compact_after=2)
        run(session.add_items(conversation()[:3]))  # one older item waits: not yet
        assert [mine.get(i).tier for i in entry_ids(mine, "conv-1")] == [Tier.HOT] * 3
        run(session.add_items(conversation()[3:]))  # two wait: compacted
        tiers = [mine.get(i).tier for i in entry_ids(mine, "conv-1")]
        assert tiers == [Tier.WARM, Tier.WARM, Tier.HOT, Tier.HOT]


def test_a_session_on_a_store_opens_its_own_memory(target: str) -> None:
    async def main() -> list[TResponseInputItem]:
        async with FactdiffSession("conv-9", target, schema="customer_service") as session:
            assert (session.memory.agent, session.memory.schema) == ("conv-9", "customer_service")
            await session.add_items(conversation()[:1])
        async with FactdiffSession("other", target, agent="conv-9") as session:
            return await session.get_items()

    assert asyncio.run(main()) == []  # same agent, another session
    with Memory(target, agent="conv-9") as mine:
        (entry_id,) = entry_ids(mine, "conv-9")
        assert mine.get(entry_id).tags == ("session:conv-9",)


def test_bad_items_and_options_are_refused_with_nothing_stored(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine)
        bad: list[object] = [float("nan"), {1, 2}, b"bytes"]
        for value in bad:
            item = {"role": "user", "content": value}
            with pytest.raises(InputError, match=r"session item 2\[.content.\] is "):
                run(session.add_items([said("user", "ok"), item]))  # type: ignore[list-item]
        with pytest.raises(InputError, match="session item 1 is a str: give a dict"):
            run(session.add_items(["hello"]))  # type: ignore[list-item]
        assert run(session.get_items()) == []
        for options, message in (
            ({"keep_recent": -1}, "keep_recent must be 0 or more"),
            ({"compact_after": 0}, "compact_after must be 1 or more"),
        ):
            with pytest.raises(InputError, match=message):
                FactdiffSession("conv-1", mine, **options)  # type: ignore[arg-type]
        with pytest.raises(InputError, match="give the session an id"):
            FactdiffSession(" ", mine)
        with pytest.raises(UsageError, match="uses its agent and schema"):
            FactdiffSession("conv-1", mine, agent="other")


def test_an_entry_corrected_to_plain_text_is_named(target: str) -> None:
    with memory(target) as mine:
        session = FactdiffSession("conv-1", mine)
        run(session.add_items(conversation()[:1]))
        (entry_id,) = entry_ids(mine, "conv-1")

        def correct(store: MemoryStore) -> None:
            store.correct(entry_id, "plain words", now=NOW + timedelta(seconds=1))

        mine.run(correct)
        for call in (session.get_items, session.pop_item):
            with pytest.raises(InputError, match=f"entry {entry_id} of session conv-1 is not"):
                run(call())
        assert mine.get(entry_id).content == "plain words"  # not popped: nothing is lost
