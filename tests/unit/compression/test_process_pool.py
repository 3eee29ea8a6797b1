"""``factdiff.compression.process_pool``: process calls are batched per turn of the event loop,
and each caller gets its own result or its own exception."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Callable

import pytest

from factdiff.compression import process_pool
from factdiff.compression.process_pool import Batcher, Call, shared_pool, shutdown_pools


def square(value: int) -> int:
    return value * value


def refuse(value: int) -> int:
    raise ValueError(f"refused {value}")


def pid(_: int) -> int:
    return os.getpid()


@pytest.fixture(autouse=True)
def _pools() -> object:
    yield None
    shutdown_pools()


def test_calls_of_one_turn_go_as_few_tasks_and_each_gets_its_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks: list[int] = []
    real = process_pool.run_batch

    def counted(calls: list[Call]) -> list[process_pool.Done]:
        tasks.append(len(calls))
        return real(calls)

    monkeypatch.setattr(process_pool, "run_batch", counted)  # the pool runs it in threads here
    monkeypatch.setattr(process_pool, "shared_pool", lambda size: _ThreadPool())

    async def main() -> list[object]:
        batcher = Batcher(2)
        calls = [batcher.submit(square if n % 3 else refuse, (n,)) for n in range(10)]
        return await asyncio.gather(*calls, return_exceptions=True)

    results = asyncio.run(main())
    assert sorted(tasks) == [5, 5]  # ten calls, split evenly over two processes
    for n, result in enumerate(results):
        if n % 3:
            assert result == n * n
        else:
            assert isinstance(result, ValueError)
            assert str(result) == f"refused {n}"


def test_batches_run_in_worker_processes() -> None:
    async def main() -> list[int]:
        batcher = Batcher(2)
        return list(await asyncio.gather(*(batcher.submit(pid, (n,)) for n in range(8))))

    pids = asyncio.run(main())
    assert os.getpid() not in pids


def test_a_broken_pool_is_replaced_and_the_batch_runs_in_a_thread() -> None:
    pool = shared_pool(1)
    pool.submit(square, 2).result()
    for process in list(getattr(pool, "_processes", {}).values()):
        process.kill()
        process.join()

    async def main() -> list[int]:
        batcher = Batcher(1)
        return list(await asyncio.gather(*(batcher.submit(square, (n,)) for n in range(3))))

    assert asyncio.run(main()) == [0, 1, 4]
    assert shared_pool(1) is not pool


class _ThreadPool:
    """Stands in for a process pool: ``run_in_executor`` runs the batch in a thread."""

    def submit(self, function: Callable[..., object], *args: object) -> object:
        future: concurrent.futures.Future[object] = concurrent.futures.Future()
        try:
            future.set_result(function(*args))
        except Exception as exc:
            future.set_exception(exc)
        return future
