"""``factdiff serve`` on a SQLite file under concurrent clients, as a user runs it: eight
client threads with a writer among them get only 2xx answers, a server just started answers
concurrent searches and contexts, and the first line it prints says where it listens."""

from __future__ import annotations

import re
import select
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from factdiff.store import open_store
from tests.acceptance.serve_helpers import FACTDIFF, Call, agent_key, hammer, served
from tests.integration.conftest import admin_dsn, create_schema, drop_schema

NOTE = "Invoice INV-{n:04d} for ${n},250.00 is due on 2026-03-25; call Dana on 415-555-0100."


def _seed(db: str, agent: str, count: int) -> list[str]:
    with open_store(db) as store:
        now = datetime.now(UTC)
        return [store.add(agent, NOTE.format(n=n), now=now) for n in range(count)]


def test_eight_clients_and_a_writer_get_only_2xx_on_sqlite(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    key = agent_key(db, "alice")
    ids = _seed(db, "alice", 20)

    def listing(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "GET /v1/entries", http.get("/v1/entries", params={"limit": 10})

    def one(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "GET /v1/entries/{id}", http.get(f"/v1/entries/{ids[n % len(ids)]}")

    def search(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "GET /v1/search", http.get("/v1/search", params={"q": f"INV-{n % 20:04d}"})

    def add(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "POST /v1/entries", http.post("/v1/entries", json={"text": NOTE.format(n=n)})

    readers: list[Call] = [listing, one, search, listing, one, search, listing]
    with served(db) as server:
        failures = hammer(server.base, key, [(call, 60) for call in [*readers, add]])
    assert failures == {}
    with open_store(db) as store:
        assert store.entry_page(agent="alice", limit=0).total == 20 + 60


def test_a_freshly_started_server_answers_concurrent_search_and_context(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "memory.db")
    key = agent_key(db, "alice")
    ids = _seed(db, "alice", 3)

    def search(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "GET /v1/search", http.get("/v1/search", params={"q": "14,250 USD"})

    def context(http: httpx.Client, n: int) -> tuple[str, httpx.Response]:
        return "POST /v1/context", http.post("/v1/context", json={"ids": ids})

    for _ in range(3):  # each round a fresh process: its first requests race to import
        with served(db) as server:
            failures = hammer(server.base, key, [(search, 2), (context, 2)] * 4)
        assert failures == {}


def test_serve_prints_where_it_listens(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    with served(db) as server:
        port = server.base.rsplit(":", 1)[1]
        assert server.banner == f"factdiff serving on http://127.0.0.1:{port} (store: {db})"


@pytest.mark.postgres
def test_serve_prints_a_dsn_without_its_password() -> None:
    base = admin_dsn()
    name, dsn = create_schema(base)
    with_password = dsn.replace("postgres@", "postgres:s3cret-pw@", 1)
    assert "s3cret-pw" in with_password  # the server trusts loopback: any password does
    try:
        with served(with_password) as server:
            assert re.fullmatch(
                r"factdiff serving on http://127\.0\.0\.1:\d+ \(store: postgresql://.+\)",
                server.banner,
            )
            assert "s3cret-pw" not in server.banner
    finally:
        drop_schema(base, name)


def test_serve_on_port_0_prints_the_port_it_got(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    server = subprocess.Popen(
        [*FACTDIFF, "serve", "--db", db, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        ready, _, _ = select.select([server.stdout], [], [], 60)
        banner = server.stdout.readline() if ready else ""
        found = re.match(r"factdiff serving on (http://127\.0\.0\.1:(\d+)) ", banner)
        assert found is not None, banner
        assert int(found.group(2)) > 0
        assert httpx.get(f"{found.group(1)}/healthz", timeout=30).status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=60)
        if server.stdout is not None:
            server.stdout.close()
