"""The store each HTTP request of ``factdiff serve`` uses: one per request, never per thread.

FastAPI runs a route's sync dependencies and its body as separate trips to the threadpool,
so they may run on different threads: a store kept per thread is not the one the route's
key check used, and a SQLite connection refuses every thread but its own. So the unit is
the request:

- ``RequestStores`` (ASGI middleware, outermost) opens a ``StoreLease`` for each request
  and releases it once the response has been sent. ``StoreProvider.get()`` is the store of
  the request in progress: the lease rides in a context variable, which Starlette's
  threadpool, the routes' dependencies and the MCP app's tasks all inherit.
- On SQLite a lease checks a store out of a small pool at its first use and gives it back at
  the end. Each pooled store has its own connection, used by one request at a time: reads
  run beside one writer (WAL) and never share a transaction with another request. A
  request's steps run one after another, so its connection passes from thread to thread but
  is never used by two at once; the hand-overs go through the pool's lock (which orders
  them), and the pooled connections are opened with ``check_same_thread=False`` (Python's
  sqlite3 is built serialised; only the same-thread check is off). When no store is idle
  the pool opens one: a request never waits for another (the threads the holders need to
  finish would be the ones waiting). At most ``max_idle`` idle stores are kept; a store
  left inside a transaction is closed instead of kept.
- On PostgreSQL (a ``thread_safe`` backend) one store, with its own connection pool, serves
  every request; a lease hands it out and releases nothing.

Outside any lease, ``get()`` gives the calling thread a store of its own, kept until
``close()``: for work that runs wholly on one thread, such as a tool call of ``factdiff
mcp`` over stdio.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from factdiff.store import MemoryStore

DEFAULT_MAX_IDLE = 8
"""Idle SQLite stores the pool keeps open between requests."""

_current: contextvars.ContextVar[StoreLease | None] = contextvars.ContextVar(
    "factdiff_request_store", default=None
)


class StoreProvider:
    """The stores of the API on ``target`` (see the module docstring): ``lease()`` for one
    unit of work, ``get()`` for the request in progress, ``close()`` at shutdown."""

    def __init__(
        self, target: str, *, create: bool = True, max_idle: int = DEFAULT_MAX_IDLE
    ) -> None:
        from factdiff.store import is_postgres

        self.target = target
        self._create = create
        self._max_idle = max_idle
        self._options = {} if is_postgres(target) else {"check_same_thread": False}
        self._lock = threading.Lock()
        self._shared: MemoryStore | None = None
        self._idle: list[MemoryStore] = []
        self._threads: list[MemoryStore] = []
        self._local = threading.local()
        self._closed = False

    def get(self) -> MemoryStore:
        """The store of the lease in progress (a request's); outside any, the calling
        thread's own (see the module docstring)."""
        lease = _current.get()
        if lease is not None and lease.provider is self:
            return lease.store
        store: MemoryStore | None = getattr(self._local, "store", None)
        if store is None:
            store = self.checkout()
            with self._lock:
                if store is not self._shared:
                    self._threads.append(store)
            self._local.store = store
        return store

    @contextmanager
    def lease(self) -> Iterator[StoreLease]:
        """A lease for the block; ``get()`` inside it (and in the threads and tasks started
        from it) is the lease's store."""
        lease = StoreLease(self)
        token = _current.set(lease)
        try:
            yield lease
        finally:
            _current.reset(token)
            lease.release()

    def checkout(self) -> MemoryStore:
        """A store for one user at a time: the shared one, an idle one, or a new one."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the API is shutting down")
            if self._shared is not None:
                return self._shared
            if self._idle:
                return self._idle.pop()
            create, self._create = self._create, False
        from factdiff.store import open_store

        try:
            store = open_store(self.target, create=create, **self._options)
        except BaseException:
            if create:
                with self._lock:
                    self._create = True  # the next open creates and migrates again
            raise
        if store.thread_safe:
            with self._lock:
                if self._shared is None and not self._closed:
                    self._shared = store
                    return store
                shared = self._shared
            store.close()
            if shared is None:
                raise RuntimeError("the API is shutting down")
            return shared
        return store

    def checkin(self, store: MemoryStore) -> None:
        """Give back a store from ``checkout`` (kept idle, or closed when enough are)."""
        with self._lock:
            if store is self._shared:
                return
            keep = not self._closed and len(self._idle) < self._max_idle and _is_clean(store)
            if keep:
                self._idle.append(store)
                return
        _close_quietly(store)

    def close(self) -> None:
        """Close the shared store, the idle ones and the threads' own; stores leased now are
        closed when they come back."""
        with self._lock:
            self._closed = True
            stores = [*self._idle, *self._threads]
            if self._shared is not None:
                stores.append(self._shared)
            self._idle, self._threads, self._shared = [], [], None
        for store in stores:
            _close_quietly(store)


class StoreLease:
    """One request's store: checked out at its first use, given back by ``release``."""

    def __init__(self, provider: StoreProvider) -> None:
        self.provider = provider
        self._lock = threading.Lock()
        self._store: MemoryStore | None = None

    @property
    def store(self) -> MemoryStore:
        """The leased store (checked out now if this is its first use)."""
        with self._lock:
            if self._store is None:
                self._store = self.provider.checkout()
            return self._store

    def release(self) -> None:
        """Give the store back (idempotent; nothing when it was never used)."""
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            self.provider.checkin(store)


class RequestStores:
    """ASGI middleware: each HTTP request runs inside a lease of ``provider``."""

    def __init__(self, app: ASGIApp, provider: StoreProvider) -> None:
        self.app = app
        self.provider = provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with self.provider.lease():
            await self.app(scope, receive, send)


def _is_clean(store: MemoryStore) -> bool:
    """Whether ``store`` may serve another request: not inside a transaction."""
    from factdiff.store.backends import SqliteBackend

    backend = store.backend
    return not (isinstance(backend, SqliteBackend) and backend.conn.in_transaction)


def _close_quietly(store: MemoryStore) -> None:
    try:
        store.close()
    except Exception:  # a store that cannot even close is gone already
        return
