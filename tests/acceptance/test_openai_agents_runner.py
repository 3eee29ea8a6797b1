"""An OpenAI Agents SDK agent whose conversation lives in factdiff: ``Runner.run`` with a
``FactdiffSession``, its model our scripted server on 127.0.0.1 reached through the SDK's
chat completions model and a real ``AsyncOpenAI`` client, on both backends. Tracing is off:
nothing leaves loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.extras import missing_extra

pytest.importorskip("agents", reason=missing_extra("agents", "openai-agents"))

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from factdiff import Memory
from factdiff.integrations.openai_agents import FactdiffSession
from factdiff.store import Entry, Tier
from factdiff.testing import Answer, RecordedRequest, ScriptedLLMServer
from tests.integration.conftest import admin_dsn, create_schema, drop_schema

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
QUESTIONS = (
    "Customer Irene Costa asks about the refund of $1,249.00 for order 88213.",
    "When must it be paid?",
    "What do we owe her, in one line?",
)
ANSWERS = {
    QUESTIONS[0]: "The refund of $1,249.00 for order 88213 was approved on 2026-03-14.",
    QUESTIONS[1]: "It must be paid by 2026-03-20.",
    QUESTIONS[2]: "$1,249.00 for order 88213, by 2026-03-20.",
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a SQLite file, or a schema of the test PostgreSQL server."""
    if request.param == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    base = admin_dsn()
    name, dsn = create_schema(base)
    try:
        yield dsn
    finally:
        drop_schema(base, name)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    """The scripted model: each question has its answer (anything else is an error)."""
    set_tracing_disabled(True)

    def answer(request: RecordedRequest) -> Answer:
        question = request.last_user_message
        if question not in ANSWERS:
            return Answer.error(400, "invalid_request_error", f"unscripted: {question!r}")
        return Answer.text(ANSWERS[question])

    with ScriptedLLMServer(responder=answer) as scripted:
        yield scripted


def text_of(item: Mapping[str, object]) -> str:
    """An item's ``content`` as text (the SDK's item type is a union of dicts)."""
    return str(item["content"])


def test_a_runner_conversation_round_trips_and_reads_compressed_turns_as_facts(
    target: str, server: ScriptedLLMServer
) -> None:
    async def main() -> None:
        client = AsyncOpenAI(base_url=server.openai_url, api_key="test", max_retries=0)
        model = OpenAIChatCompletionsModel(model="scripted", openai_client=client)
        agent = Agent(name="support", instructions="Answer from the history.", model=model)
        memory = Memory(target, agent="support-bot", schema="customer_service", clock=lambda: NOW)
        session = FactdiffSession("ticket-7", memory, keep_recent=2)
        try:
            await conversation(agent, session, server)
        finally:
            await client.close()
            await asyncio.to_thread(memory.close)

    asyncio.run(main())


async def conversation(
    agent: Agent[None], session: FactdiffSession, server: ScriptedLLMServer
) -> None:
    first = await Runner.run(agent, QUESTIONS[0], session=session)
    assert first.final_output == ANSWERS[QUESTIONS[0]]
    turn_one = await session.get_items()
    assert turn_one == first.to_input_list()  # the run's items, as the SDK made them
    second = await Runner.run(agent, QUESTIONS[1], session=session)
    assert second.final_output == ANSWERS[QUESTIONS[1]]
    sent = server.requests[-1].body["messages"]
    assert [m["content"] for m in sent[1:3]] == [QUESTIONS[0], ANSWERS[QUESTIONS[0]]]
    turn_two = (await session.get_items())[2:]

    report = await session.compact()  # turn one is compressed; turn two stays verbatim
    assert report.counts == {"clean": 2}
    summary, *verbatim = await session.get_items()
    assert verbatim == turn_two
    text = text_of(summary)
    assert summary == {"role": "system", "content": text}
    assert text.startswith("Verified summary of 2 earlier items of this conversation")
    for fact in (
        "inventory.money: 1249 USD",
        "inventory.identifier: 88213",
        "disputing_party: Irene Costa",
        "inventory.date: 2026-03-14",
        "known gaps:\n- none",
    ):
        assert fact in text
    assert text.count("tier warm") == 2
    tiers = [entry.tier for entry in await entries(session)]
    assert tiers == [Tier.WARM, Tier.WARM, Tier.HOT, Tier.HOT]

    third = await Runner.run(agent, QUESTIONS[2], session=session)
    assert third.final_output == ANSWERS[QUESTIONS[2]]
    sent = server.requests[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "system", "user", "assistant", "user"]
    assert sent[1]["content"] == text  # the model read the narrative and its facts
    assert [m["content"] for m in sent[2:]] == [QUESTIONS[1], ANSWERS[QUESTIONS[1]], QUESTIONS[2]]

    popped: list[TResponseInputItem] = []
    while (item := await session.pop_item()) is not None:
        popped.append(item)
    assert len(popped) == 6
    assert popped[::-1][:4] == [*turn_one, *turn_two]  # compressed turns come back verbatim
    assert await session.get_items() == []


async def entries(session: FactdiffSession) -> list[Entry]:
    """The session's entries in conversation order."""
    memory = session.memory
    page = await memory.arun(
        lambda store: store.entry_page(agent=memory.agent, tag=f"session:{session.session_id}")
    )
    return sorted(page.items, key=lambda entry: int(entry.metadata["session_position"]))
