"""The demotion runner's bookkeeping: busy time per stage and the window's gate."""

from __future__ import annotations

import asyncio

import pytest

from factdiff.demotion.run_stats import StageClock
from factdiff.demotion.window import Gate
from factdiff.errors import QuotaExhausted


def test_stage_time_counts_overlapping_entries_once() -> None:
    clock = StageClock()
    for start, end in [(0, 1), (2, 3), (0.5, 2.5), (10, 11), (9, 9.5), (4, 5)]:
        clock.add("summarize", start, end)
    clock.add("verify", 0, 20)
    assert clock.seconds("summarize") == 5.5
    assert clock.seconds("summarize", "verify") == 20
    assert clock.seconds("sql") == 0


def test_stage_time_folds_old_intervals_and_stays_exact() -> None:
    clock = StageClock()
    for i in range(20_000):
        clock.add("extract", i * 0.1, i * 0.1 + 0.05)
    assert clock.seconds("extract") == pytest.approx(1000.0)
    assert len(clock._spans["extract"]) < 20_000  # long runs keep a bounded list


def test_the_gate_bounds_calls_and_wants_a_few_entries_ahead() -> None:
    async def scenario() -> None:
        gate = Gate(8)
        assert (gate.prefetch, gate.batch) == (2, 1)
        assert gate.wanted(0) == 2
        tickets = [gate.queue() for _ in range(2)]
        assert gate.wanted(2) == 0  # two already wait for a slot
        async with tickets[0]:
            assert gate.waiting == 1
            assert gate.wanted(2) == 1
        tickets[1].leave()
        assert gate.waiting == 0

    asyncio.run(scenario())


def test_an_account_failure_closes_the_gate_before_the_next_call() -> None:
    async def scenario() -> None:
        gate = Gate(1)
        first, second = gate.queue(), gate.queue()
        with pytest.raises(QuotaExhausted):
            async with first:
                raise QuotaExhausted("no credit")
        assert gate.closed
        with pytest.raises(asyncio.CancelledError):
            async with second:
                raise AssertionError("never called")

    asyncio.run(scenario())
