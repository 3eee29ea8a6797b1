"""Per-attempt metering over real SDK calls: meters nest and follow asyncio tasks."""

from __future__ import annotations

import asyncio

import pytest

from factdiff.providers import LLMClient
from factdiff.providers.base import ChatRequest, Message
from factdiff.providers.meter import metered
from factdiff.testing import Answer
from tests.integration.llm_helpers import FAST, PRICES, scripted, spec

pytest.importorskip("openai")
pytest.importorskip("anthropic")

REQUEST = ChatRequest(system="Summarize.", messages=(Message("user", "text"),))


def test_meters_nest_and_sum_calls_of_several_clients() -> None:
    answers = (Answer.text("a").with_usage(10, 1), *[Answer.text("b").with_usage(20, 2)] * 2)
    with scripted(*answers) as srv:
        extractor = LLMClient(spec(srv, "openai", "test-extractor"), policy=FAST, prices=PRICES)
        summarizer = LLMClient(
            spec(srv, "anthropic", "test-summarizer"), policy=FAST, prices=PRICES
        )
        with metered() as outer:
            with metered() as inner:
                extractor.complete(REQUEST)
            summarizer.complete(REQUEST)
        summarizer.complete(REQUEST)  # outside every meter: not counted
    assert (inner.calls, inner.tokens_in, inner.tokens_out) == (1, 10, 1)
    assert (outer.calls, outer.tokens_in, outer.tokens_out) == (2, 30, 3)
    extractor_cost = PRICES.cost("openai:test-extractor", 10, 1)
    summarizer_cost = PRICES.cost("anthropic:test-summarizer", 20, 2)
    assert extractor_cost is not None
    assert summarizer_cost is not None
    assert outer.cost_usd == extractor_cost + summarizer_cost


def test_concurrent_tasks_have_their_own_meters() -> None:
    async def one(client: LLMClient) -> int:
        with metered() as usage:
            await client.acomplete(REQUEST)
        return usage.tokens_in

    async def both(client: LLMClient) -> list[int]:
        return list(await asyncio.gather(one(client), one(client)))

    with scripted(*[Answer.text("a").with_usage(7, 1)] * 2) as srv:
        client = LLMClient(spec(srv, "openai", "test-summarizer"), policy=FAST, prices=PRICES)
        assert asyncio.run(both(client)) == [7, 7]
