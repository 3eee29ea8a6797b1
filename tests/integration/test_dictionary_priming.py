"""An agent's first zstd dictionary trained ahead of its first warm write (in a worker
process during a concurrent pass): the same dictionary the warm write would have trained."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from factdiff.compression.executor import Work
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.schema.builtin import builtin_schema
from factdiff.store import Entry, MemoryStore, open_store
from factdiff.store.dictionaries import MIN_SAMPLES
from factdiff.store.warm_columns import WarmBody, WarmTarget
from factdiff.verify.check import DEFAULT_EXTRACTOR
from factdiff.verify.policy import DEFAULT_POLICY
from tests.integration.conftest import raw
from tests.integration.test_store_compact import AGENT, LATER, demote_all, load

DICTIONARIES = (
    "SELECT agent_id, version, hash, data, trained_on, created_at FROM zstd_dictionaries "
    "ORDER BY id"
)


def two_copies(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """Two identical SQLite stores holding ``count`` hot entries of one agent."""
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    with open_store(first) as store:
        load(store, count)
    shutil.copyfile(first, second)
    return first, second


def test_a_primed_dictionary_is_the_one_the_first_warm_write_trains(tmp_path: Path) -> None:
    primed_path, plain_path = two_copies(tmp_path, MIN_SAMPLES + 6)
    with open_store(primed_path) as primed:
        assert primed.prime_dictionary(AGENT, LATER)
        assert primed.prime_dictionary(AGENT, LATER + timedelta(days=1))  # kept, not retrained
        assert len(raw(primed, DICTIONARIES)) == 1
        demote_all(primed)
        primed_rows = raw(primed, DICTIONARIES)
    with open_store(plain_path) as plain:
        demote_all(plain)
        assert raw(plain, DICTIONARIES) == primed_rows
    assert len(primed_rows) == 1


def test_too_few_entries_prime_nothing(store: MemoryStore) -> None:
    load(store, MIN_SAMPLES // 4)
    assert not store.prime_dictionary(AGENT, LATER)
    assert raw(store, "SELECT count(*) FROM zstd_dictionaries") == [(0,)]


def test_a_concurrent_pass_trains_the_dictionary_ahead_and_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    concurrent_path, sequential_path = two_copies(tmp_path, MIN_SAMPLES + 6)
    primed: list[str] = []
    prime = Work.prime_dictionary

    async def counted(self: Work, path: str, agent_id: str, now: Any) -> bool | None:
        primed.append(agent_id)
        return await prime(self, path, agent_id, now)

    monkeypatch.setattr(Work, "prime_dictionary", counted)
    settings = DemotionSettings(older_than=timedelta(days=14), extract_workers=1)
    with open_store(concurrent_path) as store:
        Demoter(store, settings).run(LATER, keep_results=False, concurrency=8)
        concurrent_rows = raw(store, DICTIONARIES)
        assert store.verify() == []
    assert primed == [AGENT]
    with open_store(sequential_path) as store:
        Demoter(store, settings).run(LATER, keep_results=False)
        assert raw(store, DICTIONARIES) == concurrent_rows


def verification_case(tmp_path: Path) -> tuple[Path, Entry, tuple[Any, ...]]:
    """A SQLite store of one agent with enough entries for a dictionary but none yet, one
    of its entries, and ``Work.verify_summary``'s arguments for that entry's own text as the
    summary, with a warm target prepared before any dictionary."""
    path = tmp_path / "memory.db"
    with open_store(path) as store:
        entry = store.get(load(store, MIN_SAMPLES + 6)[0])
    text = entry.content or ""
    schema = builtin_schema("customer_service")
    record = DEFAULT_EXTRACTOR.extract(text, schema)
    target = WarmTarget(entry.id, text, entry.content_hash, None, AGENT)  # no dictionary yet
    return path, entry, (DEFAULT_EXTRACTOR, text, record, schema, DEFAULT_POLICY, target)


def test_a_target_prepared_before_the_dictionary_gets_the_one_primed_since(
    tmp_path: Path,
) -> None:
    path, entry, case = verification_case(tmp_path)
    text = entry.content or ""

    async def main() -> tuple[WarmBody | None, WarmBody | None]:
        work = Work.processes(1)
        before = (await work.verify_summary(*case)).body
        assert await work.prime_dictionary(str(path), AGENT, LATER)
        after = (await work.verify_summary(*case)).body
        return before, after

    before, after = asyncio.run(main())
    assert before is not None
    assert before.dictionary_id is None
    with open_store(path) as store:
        latest = store.latest_dictionary(AGENT)
    assert latest is not None
    assert after is not None
    assert after.dictionary_id == latest[0]
    assert after.dictionary_hash == hashlib.sha256(latest[1]).digest()
    assert after.fits(text, entry.content_hash, latest[0], hashlib.sha256(latest[1]).digest())


def test_a_verification_waits_for_the_dictionary_being_primed(tmp_path: Path) -> None:
    """A summary verified while its agent's first dictionary trains gets that dictionary,
    so the store's thread does not make its warm body again."""
    path, entry, case = verification_case(tmp_path)
    text = entry.content or ""

    async def main() -> WarmBody | None:
        work = Work.processes(1)
        priming = asyncio.create_task(work.prime_dictionary(str(path), AGENT, LATER))
        await asyncio.sleep(0)  # the training has started, and has not ended
        assert not priming.done()
        body = (await work.verify_summary(*case)).body
        assert await priming
        return body

    body = asyncio.run(main())
    with open_store(path) as store:
        latest = store.latest_dictionary(AGENT)
    assert latest is not None
    assert body is not None
    assert body.fits(text, entry.content_hash, latest[0], hashlib.sha256(latest[1]).digest())
