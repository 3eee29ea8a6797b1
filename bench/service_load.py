"""The HTTP API under load on loopback, on a SQLite file and on PostgreSQL: concurrent
clients making mixed requests while a demotion worker runs against the same store.

    FACTDIFF_BENCH_PG_DSN=postgresql://postgres@127.0.0.1:5432/test \\
        .venv/bin/python -m bench.service_load [--stores sqlite,postgres] [--workers 2] \\
        [--clients 8] [--ops 50]

Per store: a fresh one (a SQLite file in a temporary folder; a new PostgreSQL schema,
dropped after). ``factdiff serve --workers W`` and ``factdiff worker`` (offline pipeline,
entries due at once) run as subprocesses; each client thread, with its own agent key, makes
``--ops`` rounds of ``POST /v1/entries`` (a note with a unique order id), ``GET
/v1/search`` for an id it added before, ``GET /v1/entries/{id}`` of one of its entries and
``GET /v1/entries`` (a page of its own). Printed per store: requests/s, p50/p95/p99 and the
count of non-2xx answers per route, the same operations made in-process on the store as a
baseline (and the ratio), transport errors, and the check that nothing was lost: every id
the API returned is in the store, in one tier, with its text or its verified archive, every
search found its own entry, and ``verify`` finds no problem. Exit 1 on any non-2xx, error
or loss. Without ``FACTDIFF_BENCH_PG_DSN`` only SQLite runs (and it says so).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.pg import pg_schema
from factdiff.store import open_store
from factdiff.store.api_keys import KeyScope

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


@dataclass
class LoadResult:
    """What a load run measured and checked."""

    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    non_2xx: Counter[str] = field(default_factory=Counter)
    """Answers that were not 2xx, per route."""
    errors: list[str] = field(default_factory=list)
    """Every failed request: ``route: status`` or ``route: transport error``."""
    added: dict[str, str] = field(default_factory=dict)
    """Entry id -> the unique order id its text holds."""
    missed_searches: int = 0
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warm: int = 0
    baseline: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by nearest rank (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _note(agent: int, n: int) -> tuple[str, str]:
    order = f"ORD-{agent:02d}{n:05d}"
    text = (
        f"Customer called about order {order}: 3 chairs for $1,2{n % 10}0.00, delivery on "
        f"2026-04-{1 + n % 28:02d} to the Denver office. Agreed to pay by card."
    )
    return order, text


@contextmanager
def _process(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """``factdiff ARGS`` as a subprocess for the block (stderr kept in a temporary file)."""
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [PYTHON, "-m", "factdiff.cli", *args],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"factdiff serve exited with status {proc.returncode}")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("factdiff serve did not become ready within 60 s")


ADD, SEARCH, GET, LIST = (
    "POST /v1/entries",
    "GET /v1/search",
    "GET /v1/entries/{id}",
    "GET /v1/entries",
)
ROUTES = (ADD, SEARCH, GET, LIST)


def _baseline(dsn: str, result: LoadResult, ops: int) -> None:
    """The same operations in-process on the store (no HTTP), for the ratio."""
    now = datetime.now(UTC)

    def timed(route: str, work: Callable[..., object], *args: object, **kw: object) -> object:
        started = time.perf_counter()
        done = work(*args, **kw)
        result.baseline[route].append(time.perf_counter() - started)
        return done

    with open_store(dsn) as store:
        added: list[object] = []
        for n in range(ops):
            order, text = _note(99, n)
            added.append(timed(ADD, store.add, "baseline", text, now=now))
            timed(SEARCH, store.search, order, agent="baseline", k=5)
            timed(GET, store.get, added[(n * 3) % len(added)])
            timed(LIST, store.entry_page, agent="baseline", limit=20)


class _Client:
    """One client thread's requests: each timed, and its failures counted per route."""

    def __init__(self, http: httpx.Client, result: LoadResult, lock: threading.Lock) -> None:
        self.http = http
        self.result = result
        self.lock = lock

    def call(self, route: str, method: str, path: str, **options: object) -> httpx.Response | None:
        """The answer when it was 2xx, else ``None`` (counted)."""
        started = time.perf_counter()
        try:
            response = self.http.request(method, path, **options)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            with self.lock:
                self.result.errors.append(f"{route}: {type(exc).__name__}")
            return None
        elapsed = time.perf_counter() - started
        with self.lock:
            self.result.latencies[route].append(elapsed)
            if not 200 <= response.status_code < 300:
                self.result.non_2xx[route] += 1
                self.result.errors.append(f"{route}: {response.status_code}")
                return None
        return response


def _client(
    base: str, key: str, agent: int, ops: int, result: LoadResult, lock: threading.Lock
) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    mine: list[tuple[str, str]] = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        client = _Client(http, result, lock)
        for n in range(ops):
            order, text = _note(agent, n)
            added = client.call(ADD, "POST", "/v1/entries", json={"text": text, "tags": ["load"]})
            if added is None:
                continue
            entry_id = added.json()["id"]
            with lock:
                result.added[entry_id] = order
            mine.append((entry_id, order))
            wanted_id, wanted = mine[(n * 7) % len(mine)]
            found = client.call(SEARCH, "GET", "/v1/search", params={"q": wanted, "k": 5})
            if found is not None and wanted_id not in {h["entry_id"] for h in found.json()["hits"]}:
                with lock:
                    result.missed_searches += 1
            client.call(GET, "GET", f"/v1/entries/{mine[(n * 3) % len(mine)][0]}")
            client.call(LIST, "GET", "/v1/entries", params={"limit": 20})


def run_load(dsn: str, *, workers: int = 2, clients: int = 8, ops: int = 50) -> LoadResult:
    """Serve the API on ``dsn`` (an empty store: a SQLite path or a PostgreSQL schema's
    DSN) and load it; see the module docstring."""
    now = datetime.now(UTC)
    with open_store(dsn) as store:
        keys = [
            store.create_api_key(
                scope=KeyScope.AGENT, agent_id=f"agent-{i}", name=f"load-{i}", now=now
            ).secret
            for i in range(clients)
        ]
    result = LoadResult(seconds=0.0)
    _baseline(dsn, result, ops)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FACTDIFF_OLDER_THAN": "0s", "FACTDIFF_POLL": "0.2"}
    serve = ["serve", "--db", dsn, "--port", str(port), "--workers", str(workers)]
    with _process(serve, env) as server, _process(["worker", "--db", dsn], env):
        _wait_ready(base, server)
        lock = threading.Lock()
        threads = [
            threading.Thread(target=_client, args=(base, keys[i], i, ops, result, lock))
            for i in range(clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        result.seconds = time.perf_counter() - started
    _check_nothing_lost(dsn, result)
    return result


def _check_nothing_lost(dsn: str, result: LoadResult) -> None:
    with open_store(dsn) as store:
        for entry_id, order in sorted(result.added.items()):
            entry = store.get(entry_id)
            text = entry.content if entry.content is not None else store.read_cold(entry_id)
            if order not in text:
                result.lost.append(entry_id)
            if entry.tier.value == "warm":
                result.warm += 1
        result.problems = store.verify()


def report(result: LoadResult, workers: int, clients: int, store: str = "PostgreSQL") -> str:
    """The figures, one line each."""
    requests = sum(len(v) for v in result.latencies.values())
    lines = [
        f"service load: {workers} uvicorn workers on {store}, {clients} clients, "
        f"demotion worker running",
        f"requests {requests} in {result.seconds:.2f} s: {requests / result.seconds:.1f} req/s",
    ]
    for route in sorted(result.latencies):
        values = result.latencies[route]
        base = result.baseline.get(route, [])
        ratio = statistics.median(values) / statistics.median(base) if base else float("nan")
        lines.append(
            f"  {route:<20} n={len(values):<5} p50={percentile(values, 0.5) * 1000:7.1f} ms  "
            f"p95={percentile(values, 0.95) * 1000:7.1f} ms  "
            f"p99={percentile(values, 0.99) * 1000:7.1f} ms  "
            f"non-2xx {result.non_2xx[route]:<3} "
            f"in-process p50={percentile(base, 0.5) * 1000:6.1f} ms  x{ratio:.1f}"
        )
    lines.append(
        f"errors {len(result.errors)}; added {len(result.added)}, lost {len(result.lost)}, "
        f"demoted meanwhile {result.warm}; searches missing their entry "
        f"{result.missed_searches}; verify problems {len(result.problems)}"
    )
    return "\n".join(lines)


def _failed(result: LoadResult) -> bool:
    return bool(result.errors or result.lost or result.problems or result.missed_searches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,postgres", help="sqlite, postgres or both")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--ops", type=int, default=50, help="rounds (4 requests) per client")
    args = parser.parse_args()
    stores = [name.strip() for name in args.stores.split(",") if name.strip()]
    unknown = set(stores) - {"sqlite", "postgres"}
    if unknown or not stores:
        sys.exit(f"--stores: sqlite, postgres or both (got {args.stores!r})")
    dsn = os.environ.get("FACTDIFF_BENCH_PG_DSN")
    if "postgres" in stores and not dsn:
        print("PostgreSQL skipped: set FACTDIFF_BENCH_PG_DSN=postgresql://... to run it too")
        stores.remove("postgres")
    failed = False
    for name in stores:
        load = {"workers": args.workers, "clients": args.clients, "ops": args.ops}
        if name == "sqlite":
            with tempfile.TemporaryDirectory() as folder:
                result = run_load(str(Path(folder) / "memory.db"), **load)
            shown = "SQLite"
        else:
            assert dsn is not None
            with pg_schema(dsn, "load") as schema:
                result = run_load(schema.dsn, **load)
            shown = "PostgreSQL"
        print(report(result, args.workers, args.clients, shown))
        failed = failed or _failed(result)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
