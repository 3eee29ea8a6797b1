"""One store per request, over real HTTP: a request's steps share one store across
threadpool threads, reads run beside an open write (WAL), a 5xx names neither the store nor
its driver, a streamed body over the limit is 413, and no route imports a module after the
app was made."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from factdiff.errors import StoreError
from factdiff.service.errors import install_error_handlers
from factdiff.service.stores import StoreProvider
from factdiff.store import open_store
from tests.integration.service_helpers import client, make_keys, running_api

ROOT = Path(__file__).resolve().parents[2]


def test_reads_answer_while_a_writer_holds_the_write_lock(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    keys = make_keys(db)
    with open_store(db) as store:
        kept = store.add("alice", "Invoice INV-1 for $20.", now=datetime.now(UTC))
    writer = sqlite3.connect(db, isolation_level=None)
    try:
        with running_api(db) as base, client(base, keys.alice) as http:
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("DELETE FROM api_keys WHERE name = 'bob-key'")
            listed = http.get("/v1/entries")  # not blocked: WAL readers never wait
            assert listed.status_code == 200
            assert [e["id"] for e in listed.json()["entries"]] == [kept]
            assert http.get(f"/v1/entries/{kept}").status_code == 200
            assert http.get(f"/v1/entries/{kept}/attempts").status_code == 200
            assert http.get("/v1/events").status_code == 200
            writer.execute("ROLLBACK")  # (a search records use: a write, so it would wait)
    finally:
        writer.close()


def test_a_5xx_names_neither_the_store_nor_its_driver(tmp_path: Path) -> None:
    db = tmp_path / "secret-place" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"this is no database at all, " * 200)
    with running_api(str(db), create=False) as base, client(base, "fd_any") as http:
        answers = [http.get("/v1/entries"), http.post("/v1/entries", json={"text": "x"})]
    for answer in answers:
        assert answer.status_code == 503
        assert answer.json()["error"]["code"] == "unavailable"
        assert "secret-place" not in answer.text
        assert "not a database" not in answer.text
        assert "try again later" in answer.json()["error"]["message"]


def test_an_unexpected_error_is_a_bare_500_document() -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/store")
    def store_down() -> None:
        raise StoreError("store /srv/private/memory.db: disk I/O error")

    @app.get("/bug")
    def bug() -> None:
        raise RuntimeError("/srv/private/memory.db: something odd")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)

    async def call(path: str) -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.get(path)

    import anyio

    for path, status in (("/store", 503), ("/bug", 500)):
        answer = anyio.run(call, path)
        assert answer.status_code == status
        assert "/srv/private" not in answer.text
        assert "disk I/O" not in answer.text
        assert set(answer.json()["error"]) == {"code", "message"}


def test_a_chunked_body_over_the_limit_is_413(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    keys = make_keys(db)

    def chunks(count: int) -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(count):
            yield b"x" * 1000
        yield b'"}'

    headers = {"Content-Type": "application/json"}
    with running_api(db, max_body_bytes=4096) as base, client(base, keys.alice) as http:
        over = http.post("/v1/entries", content=chunks(10), headers=headers)
        assert "content-length" not in over.request.headers
        assert over.status_code == 413
        assert over.json()["error"]["code"] == "too_large"
        under = http.post("/v1/entries", content=chunks(2), headers=headers)
        assert under.status_code == 201


def test_no_route_imports_a_module_after_the_app_is_made(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    toured = subprocess.run(
        [sys.executable, "-m", "tests.integration.route_tour", db],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(toured.stdout.strip().splitlines()[-1])
    assert result["wrong"] == []
    assert result["imported"] == []


def test_a_lease_is_one_store_whatever_thread_uses_it(tmp_path: Path) -> None:
    provider = StoreProvider(str(tmp_path / "memory.db"))
    try:
        with provider.lease():
            mine = provider.get()
            seen: list[object] = []

            def other_thread() -> None:
                seen.append(provider.get())
                seen.append(provider.get().add("alice", "ORD-1", now=datetime.now(UTC)))

            # a thread started inside the lease carries it (as the threadpool does)
            import contextvars

            context = contextvars.copy_context()
            thread = threading.Thread(target=context.run, args=(other_thread,))
            thread.start()
            thread.join()
            assert seen[0] is mine
            assert mine.get(str(seen[1])).content == "ORD-1"
        with provider.lease():
            assert provider.get() is mine  # given back, then reused
    finally:
        provider.close()


@pytest.mark.postgres
def test_postgres_requests_share_one_pooled_store(pg_dsn: str) -> None:
    provider = StoreProvider(pg_dsn)
    try:
        with provider.lease():
            first = provider.get()
        with provider.lease():
            assert provider.get() is first
        assert first.thread_safe
    finally:
        provider.close()
