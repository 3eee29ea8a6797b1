"""Store calls queued to the store's thread: grouped outcomes share one transaction, each
caller gets its own result or exception, and a failed group runs its calls alone."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, cast

import pytest

from factdiff.demotion.run_stats import StageClock
from factdiff.demotion.store_calls import StoreCalls, grouped
from factdiff.errors import StoreError
from factdiff.store import MemoryStore


class FakeStore:
    """A store served by one thread whose ``write_each`` records its groups."""

    thread_safe = False

    def __init__(self, *, commit_fails: bool = False) -> None:
        self.groups: list[int] = []
        self.commit_fails = commit_fails

    def write_each(self, calls: Sequence[Callable[[], Any]]) -> list[tuple[bool, Any]]:
        self.groups.append(len(calls))
        outcomes: list[tuple[bool, Any]] = []
        for call in calls:
            try:
                outcomes.append((True, call()))
            except Exception as exc:
                outcomes.append((False, exc))
        if self.commit_fails:
            raise StoreError("disk I/O error at commit")
        return outcomes


def serve(
    store: FakeStore, queued: int, scenario: Callable[[StoreCalls], Coroutine[Any, Any, Any]]
) -> tuple[StoreCalls, Any]:
    """Run ``scenario`` on a loop thread; serve its calls here once ``queued`` are waiting
    (so that they are taken together)."""
    calls = StoreCalls(cast(MemoryStore, store), StageClock())
    main: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def loop() -> None:
        try:
            main.set_result(asyncio.run(scenario(calls)))
        except BaseException as exc:
            main.set_exception(exc)

    thread = threading.Thread(target=loop)
    thread.start()
    deadline = time.monotonic() + 10
    while calls._queue.qsize() < queued and time.monotonic() < deadline:
        time.sleep(0.001)
    calls.serve_until(main)
    thread.join()
    return calls, main.result()


def test_queued_outcomes_share_one_transaction_and_keep_their_own_results() -> None:
    store = FakeStore()
    ran: list[str] = []

    def outcome(name: str) -> str:
        ran.append(name)
        if name == "refused":
            raise ValueError("refused by its fence")
        return f"{name} applied"

    def claim() -> str:
        ran.append("claim")
        return "claimed"

    async def scenario(calls: StoreCalls) -> Any:
        return await asyncio.gather(
            calls(grouped(outcome), "first"),
            calls(claim),
            calls(grouped(outcome), "refused"),
            calls(grouped(outcome), "third"),
            return_exceptions=True,
        )

    calls, results = serve(store, 4, scenario)
    assert store.groups == [3]
    assert calls.groups == 1
    assert results[0] == "first applied"
    assert results[1] == "claimed"
    assert isinstance(results[2], ValueError)
    assert str(results[2]) == "refused by its fence"
    assert results[3] == "third applied"
    assert sorted(ran) == ["claim", "first", "refused", "third"]


def test_a_lone_outcome_runs_in_its_own_transaction() -> None:
    store = FakeStore()

    async def scenario(calls: StoreCalls) -> Any:
        return await calls(grouped(lambda: "alone"))

    _, result = serve(store, 1, scenario)
    assert result == "alone"
    assert store.groups == []


def test_a_group_whose_commit_fails_runs_each_outcome_alone() -> None:
    store = FakeStore(commit_fails=True)
    runs: dict[str, int] = {}

    def outcome(name: str) -> str:
        runs[name] = runs.get(name, 0) + 1
        if name == "broken":
            raise StoreError("broken on its own")
        return name

    async def scenario(calls: StoreCalls) -> Any:
        return await asyncio.gather(
            *(calls(grouped(outcome), name) for name in ("a", "broken", "b")),
            return_exceptions=True,
        )

    _, results = serve(store, 3, scenario)
    assert store.groups == [3]
    assert results[0] == "a"
    assert results[2] == "b"
    assert isinstance(results[1], StoreError)
    assert "on its own" in str(results[1])
    assert runs == {"a": 2, "broken": 2, "b": 2}  # once in the group, once alone


def test_grouped_is_the_function_when_called_directly() -> None:
    assert grouped(lambda x: x + 1)(1) == 2
    with pytest.raises(ZeroDivisionError):
        grouped(lambda: 1 / 0)()
