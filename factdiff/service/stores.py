"""One store per worker thread (SQLite connections stay in their thread), or one shared
pool-backed store (PostgreSQL), for the request handlers of ``factdiff serve``."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factdiff.store import MemoryStore


class StoreProvider:
    """Opens the store at ``target`` lazily: shared when the backend is thread-safe, else
    one per thread. ``close`` releases every store it opened (best effort across threads)."""

    def __init__(self, target: str, *, create: bool = True) -> None:
        self.target = target
        self._create = create
        self._local = threading.local()
        self._lock = threading.Lock()
        self._shared: MemoryStore | None = None
        self._opened: list[MemoryStore] = []

    def get(self) -> MemoryStore:
        """The store for the calling thread."""
        if self._shared is not None:
            return self._shared
        store: MemoryStore | None = getattr(self._local, "store", None)
        if store is not None:
            return store
        from factdiff.store import open_store

        opened = open_store(self.target, create=self._create)
        with self._lock:
            self._create = False  # created and migrated once is enough
            if opened.thread_safe:
                if self._shared is None:
                    self._shared = opened
                    self._opened.append(opened)
                    return opened
                opened.close()
                return self._shared
            self._opened.append(opened)
        self._local.store = opened
        return opened

    def close(self) -> None:
        """Close every store opened so far."""
        with self._lock:
            opened, self._opened, self._shared = self._opened, [], None
        for store in opened:
            try:
                store.close()
            except Exception:
                continue
