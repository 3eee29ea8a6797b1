"""``factdiff.compression.executor``: process calls are batched per turn of the event loop, and each
caller gets its own result or its own exception."""

from __future__ import annotations

import asyncio
import hashlib
import os

import pytest
import zstandard

from factdiff.compression import executor
from factdiff.compression.executor import Verification, Work, _Batcher, shared_pool, shutdown_pools
from factdiff.schema.model import FactSchema
from factdiff.store import codec
from factdiff.store.warm_columns import WarmTarget, encode_body
from factdiff.verify.check import DEFAULT_EXTRACTOR
from factdiff.verify.policy import DEFAULT_POLICY
from tests.conftest import worked


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
    real = executor._run_batch

    def counted(calls: list[tuple[object, tuple[object, ...]]]) -> object:
        tasks.append(len(calls))
        return real(calls)  # type: ignore[arg-type]

    monkeypatch.setattr(executor, "_run_batch", counted)  # the pool runs it in threads here
    monkeypatch.setattr(executor, "shared_pool", lambda size: _ThreadPool())

    async def main() -> list[object]:
        batcher = _Batcher(2)
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
        batcher = _Batcher(2)
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
        batcher = _Batcher(1)
        return list(await asyncio.gather(*(batcher.submit(square, (n,)) for n in range(3))))

    assert asyncio.run(main()) == [0, 1, 4]
    assert shared_pool(1) is not pool


class _ThreadPool:
    """Stands in for a process pool: ``run_in_executor`` runs the batch in a thread."""

    def submit(self, function: object, *args: object) -> object:
        import concurrent.futures

        future: concurrent.futures.Future[object] = concurrent.futures.Future()
        try:
            future.set_result(function(*args))  # type: ignore[operator]
        except Exception as exc:
            future.set_exception(exc)
        return future


def test_a_verification_in_a_process_is_the_one_made_here(
    customer_service: FactSchema,
) -> None:
    source = worked("source")
    record = DEFAULT_EXTRACTOR.extract(source, customer_service)

    async def main(summary: str) -> tuple[Verification, Verification]:
        pooled = await Work.processes(1).verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY
        )
        inline = await Work.inline().verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY
        )
        return pooled, inline

    for summary in (worked("faithful"), worked("fluent")):
        pooled, inline = asyncio.run(main(summary))
        assert pooled == inline
        assert pooled.summary_facts == DEFAULT_EXTRACTOR.extract(
            summary, customer_service, record.reference
        )
        assert pooled.body is None  # no warm target


def test_a_passed_summary_gets_its_warm_body_where_it_was_verified(
    customer_service: FactSchema,
) -> None:
    source = worked("source")
    record = DEFAULT_EXTRACTOR.extract(source, customer_service)
    data = b"a dictionary of the agent's words: order, refund, invoice " * 40
    target = WarmTarget("e1", source, codec.content_hash(source.encode()), (7, data))

    async def main(summary: str) -> tuple[Verification, Verification]:
        pooled = await Work.processes(1).verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY, target
        )
        inline = await Work.inline().verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY, target
        )
        assert inline.body is None  # no worker process: the store's thread makes it
        return pooled, inline

    summary = worked("faithful")
    pooled, inline = asyncio.run(main(summary))
    assert inline.summary_facts is not None
    expected = encode_body(
        "e1",
        source,
        target.content_hash,
        summary,
        record.to_json(),
        (7, zstandard.ZstdCompressionDict(data)),
        SchemaOf(customer_service),
        inline.summary_facts,
    )
    assert pooled.body is not None
    assert pooled.body == expected
    assert pooled.body.dictionary_hash == hashlib.sha256(data).digest()
    assert pooled.summary_facts is None  # the body holds what the warm write needs of it
    assert (pooled.outcome, pooled.diff, pooled.notes) == (
        inline.outcome,
        inline.diff,
        inline.notes,
    )
    failed, _ = asyncio.run(main(worked("fluent")))
    assert failed.body is None  # a failed summary has no warm row...
    assert failed.summary_facts is not None  # ...and its failure event shows its record


class SchemaOf:
    def __init__(self, schema: FactSchema) -> None:
        self.schema = schema

    def get(self, name: str, version: int | None = None) -> FactSchema | None:
        return self.schema
