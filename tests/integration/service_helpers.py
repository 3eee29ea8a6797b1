"""The HTTP API on a real loopback port (uvicorn in a thread), and keys to call it with."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from factdiff.store import open_store
from factdiff.store.api_keys import KeyScope


@dataclass(frozen=True)
class Keys:
    """Secrets of the keys a test calls with."""

    alice: str
    bob: str
    operator: str


def make_keys(target: str) -> Keys:
    """Agent keys for ``alice`` and ``bob`` and an operator key, in the store at ``target``."""
    now = datetime.now(UTC)
    with open_store(target) as store:

        def new(scope: KeyScope, agent: str | None, name: str) -> str:
            return store.create_api_key(scope=scope, agent_id=agent, name=name, now=now).secret

        return Keys(
            alice=new(KeyScope.AGENT, "alice", "alice-key"),
            bob=new(KeyScope.AGENT, "bob", "bob-key"),
            operator=new(KeyScope.OPERATOR, None, "ops"),
        )


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running_api(target: str, **options: Any) -> Iterator[str]:
    """Serve the API on ``target`` on a loopback port for the block; yields its base URL."""
    import uvicorn

    from factdiff.service import create_app

    app = create_app(target, event_poll_seconds=0.05, **options)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def bearer(key: str) -> dict[str, str]:
    """The ``Authorization`` header for ``key``."""
    return {"Authorization": f"Bearer {key}"}


def client(base: str, key: str | None = None) -> httpx.Client:
    """An HTTP client for the API, sending ``key`` when given."""
    return httpx.Client(base_url=base, headers=bearer(key) if key else None, timeout=60)
