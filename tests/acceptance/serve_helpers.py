"""``factdiff serve`` as a subprocess on a loopback port, and client threads that call it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from tests.integration.service_helpers import free_port

FACTDIFF = [sys.executable, "-m", "factdiff.cli"]


@dataclass(frozen=True)
class Served:
    """A running ``factdiff serve``: its base URL and the line it printed first."""

    base: str
    banner: str


def agent_key(db: str, agent: str) -> str:
    """A new agent key for ``agent`` (``factdiff keys create --json``)."""
    made = subprocess.run(
        [*FACTDIFF, "keys", "create", "--agent", agent, "--json", "--db", db],
        check=True,
        capture_output=True,
        text=True,
    )
    key: str = json.loads(made.stdout)["key"]
    return key


@contextmanager
def served(
    db: str, *options: str, ready: str = "/healthz", scheme: str = "http"
) -> Iterator[Served]:
    """``factdiff serve --db DB OPTIONS`` on a free port until the block ends, once
    ``ready`` answers (``/healthz`` touches neither the store nor a lazy import); ``https``
    when it serves TLS (a self-signed certificate: not verified)."""
    port = free_port()
    server = subprocess.Popen(
        [*FACTDIFF, "serve", "--db", db, "--port", str(port), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    base = f"{scheme}://127.0.0.1:{port}"
    printed: list[str] = []
    assert server.stdout is not None
    reader = threading.Thread(target=lambda: printed.extend(server.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}{ready}", timeout=2, verify=False).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"factdiff serve did not start: {printed!r}")
            time.sleep(0.02)
        shown = time.monotonic() + 10  # printed before the socket was bound: read by now
        while not printed and time.monotonic() < shown:
            time.sleep(0.02)
        yield Served(base, printed[0].strip() if printed else "")
    finally:
        server.terminate()
        server.wait(timeout=60)
        reader.join(timeout=10)
        server.stdout.close()


Call = Callable[[httpx.Client, int], tuple[str, httpx.Response]]
"""One request a client thread makes: ``(client, n) -> (route, response)``."""


def hammer(base: str, key: str, calls: list[tuple[Call, int]]) -> Counter[str]:
    """Run each ``(call, times)`` in a thread of its own, all started at once; the count
    of non-2xx answers per ``route status`` (empty when every answer was 2xx)."""
    failures: Counter[str] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(len(calls))

    def client(call: Call, times: int) -> None:
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
            start.wait()
            for n in range(times):
                route, response = call(http, n)
                if not 200 <= response.status_code < 300:
                    with lock:
                        failures[f"{route} {response.status_code}"] += 1

    threads = [threading.Thread(target=client, args=pair) for pair in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures
