"""``Memory``: one agent's verified memory in five lines, sync or async.

::

    from factdiff import Memory

    with Memory("memory.db", agent="support-bot", schema="customer_service") as memory:
        entry_id = memory.add("Refund of $1,249.00 for order 88213 due by 2026-03-20.")
        hits = memory.search("order 88213")          # facts and known gaps with each hit
        memory.demote(older_than="0s")               # verified compression, now

A ``Memory`` is a store (a SQLite path or a ``postgresql://`` DSN) seen by one agent: what it
adds is that agent's, and what it reads, searches, renders and forgets is limited to that
agent's entries (another agent's id is ``EntryNotFound``, as if it did not exist). Times
are the wall clock (UTC) unless a ``clock`` is given; demotion uses the resolved settings
(``factdiff.settings``: file, environment, defaults), so the same configuration drives the
command line and this object.

Every method has an ``a``-prefixed twin for asyncio (``await memory.asearch(...)``). A store
on SQLite holds one connection, which serves one thread: a ``Memory`` on SQLite runs all its
store work, sync and async, on one thread of its own, so it may be used from any thread and
from an event loop without blocking it. On PostgreSQL (a thread-safe store with its own
connection pool) the async twins run in asyncio's default thread pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self, TypeVar

from factdiff.errors import InputError
from factdiff.inputs.times import parse_duration

if TYPE_CHECKING:
    from factdiff.demotion.demoter import DemotionReport
    from factdiff.demotion.settings import DemotionSettings
    from factdiff.retrieve.context import RenderedContext
    from factdiff.retrieve.hits import SearchHit
    from factdiff.settings import Settings
    from factdiff.store import Entry, MemoryStore
    from factdiff.store.erasure import Forgotten
    from factdiff.values.base import JSON

T = TypeVar("T")

Duration = timedelta | str | float
"""A timedelta, seconds, or a duration text such as ``"14d"``, ``"12h"`` or ``"0s"``."""

__all__ = ["Memory"]


class Memory:
    """The memory of ``agent`` in the store at ``target`` (see the module docstring).

    ``schema``: the schema name new entries are compressed under (default: the agent's
    assigned schema, else the generic one). ``settings``: demotion's configuration (default:
    ``factdiff.settings.load_settings()``). ``clock``: the time of writes and of demotion
    (default: the wall clock, UTC). ``create``: make and migrate the store when it is new.
    """

    def __init__(
        self,
        target: str | Path,
        *,
        agent: str,
        schema: str | None = None,
        settings: Settings | None = None,
        clock: Callable[[], datetime] | None = None,
        create: bool = True,
    ) -> None:
        if not agent.strip():
            raise InputError("give the agent this memory belongs to: Memory(..., agent='name')")
        self.agent = agent
        self.schema = schema
        self._settings = settings
        self._clock = clock or _utc_now
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._closed = False
        self._store = self._open(target, create)

    # -- lifecycle -------------------------------------------------------------------------

    def _open(self, target: str | Path, create: bool) -> MemoryStore:
        from factdiff.store import is_postgres, open_store

        if is_postgres(str(target)):
            return open_store(target, create=create)
        self._thread = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix=f"factdiff-memory-{self.agent}"
        )
        try:
            return self._thread.submit(open_store, target, create=create).result()
        except BaseException:
            self._thread.shutdown()
            raise

    @property
    def store(self) -> MemoryStore:
        """The store underneath (every agent's entries; for what this class does not cover).
        On SQLite, use it only from inside ``run`` (its connection serves one thread)."""
        return self._store

    def run(self, work: Callable[[MemoryStore], T]) -> T:
        """``work(store)`` where the store may be used (on SQLite: this memory's thread)."""
        if self._thread is None:
            return work(self._store)
        return self._thread.submit(work, self._store).result()

    def now(self) -> datetime:
        """The time this memory writes and demotes at (its ``clock``)."""
        return self._clock()

    def demotion_settings(self, older_than: Duration | None = None) -> DemotionSettings:
        """What this memory's demotion passes use: its settings' (see the class docstring),
        with ``older_than`` (a ``Duration``) in place of theirs when given."""
        from dataclasses import replace

        from factdiff.demotion.settings import DemotionSettings
        from factdiff.settings import load_settings

        demotion = DemotionSettings.from_settings(self._settings or load_settings())
        if older_than is None:
            return demotion
        try:
            seconds = parse_duration(older_than)
        except ValueError as exc:
            raise InputError(f"older_than {exc}") from None
        return replace(demotion, older_than=timedelta(seconds=seconds))

    async def arun(self, work: Callable[[MemoryStore], T]) -> T:
        """``run`` without blocking the event loop."""
        if self._thread is None:
            return await asyncio.to_thread(work, self._store)
        return await asyncio.wrap_future(self._thread.submit(work, self._store))

    def close(self) -> None:
        """Close the store (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.run(lambda store: store.close())
        if self._thread is not None:
            self._thread.shutdown()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    # -- the work, each as a function of the store -----------------------------------------

    def _add(
        self,
        text: str,
        occurred_at: datetime | None,
        tags: Sequence[str],
        metadata: Mapping[str, JSON] | None,
    ) -> Callable[[MemoryStore], str]:
        now = self._clock()
        return lambda store: store.add(
            self.agent,
            text,
            now=now,
            occurred_at=occurred_at,
            metadata=metadata,
            schema=self.schema,
            tags=tuple(tags),
        )

    def _search(
        self, query: str, k: int, include_source: str
    ) -> Callable[[MemoryStore], list[SearchHit]]:
        now = self._clock()
        return lambda store: list(
            store.search(query, agent=self.agent, k=k, include_source=include_source, now=now)
        )

    def _get(self, entry_id: str) -> Callable[[MemoryStore], Entry]:
        return lambda store: self._own(store, entry_id)

    def _context(
        self, query_or_ids: str | Sequence[str], k: int
    ) -> Callable[[MemoryStore], RenderedContext]:
        now = self._clock()

        def render(store: MemoryStore) -> RenderedContext:
            if isinstance(query_or_ids, str):
                hits = store.search(query_or_ids, agent=self.agent, k=k, now=now)
                ids = [hit.entry_id for hit in hits]
            else:
                ids = [self._own(store, entry_id).id for entry_id in query_or_ids]
            rendered: RenderedContext = store.render_context(ids)
            return rendered

        return render

    def _forget(
        self, entry_ids: str | Sequence[str], reason: str
    ) -> Callable[[MemoryStore], list[Forgotten]]:
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        now = self._clock()
        return lambda store: store.forget(ids, now=now, reason=reason, owner=self.agent)

    def _demote(
        self, older_than: Duration | None, limit: int | None
    ) -> Callable[[MemoryStore], DemotionReport]:
        from factdiff.demotion.demoter import Demoter

        demotion = self.demotion_settings(older_than)
        now = self._clock()
        return lambda store: Demoter(store, demotion).run(now, agent=self.agent, limit=limit)

    def _own(self, store: MemoryStore, entry_id: str) -> Entry:
        """The entry ``entry_id`` when it is this agent's (else ``EntryNotFound``)."""
        from factdiff.store import EntryNotFound

        entry = store.get(entry_id)
        if entry.agent_id != self.agent:
            raise EntryNotFound(entry_id)
        return entry

    # -- sync ------------------------------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        occurred_at: datetime | None = None,
        tags: Sequence[str] = (),
        metadata: Mapping[str, JSON] | None = None,
    ) -> str:
        """Store ``text`` as a new hot entry of this agent; its id. ``occurred_at``: when it
        happened (relative dates in it resolve against this; default: now)."""
        return self.run(self._add(text, occurred_at, tags, metadata))

    def search(self, query: str, *, k: int = 5, include_source: str = "auto") -> list[SearchHit]:
        """This agent's ``k`` entries that best answer ``query`` (``MemoryStore.search``'s
        hits: text or narrative, facts, known gaps, the source when a gap is asked about)."""
        return self.run(self._search(query, k, include_source))

    def get(self, entry_id: str) -> Entry:
        """One of this agent's entries, hot or warm (``EntryNotFound`` for any other id)."""
        return self.run(self._get(entry_id))

    def context(self, query_or_ids: str | Sequence[str], *, k: int = 5) -> RenderedContext:
        """What the agent is shown: the rendered context (text and hash an audit re-checks)
        of the entries a query finds (a string), or of these entry ids (a sequence)."""
        return self.run(self._context(query_or_ids, k))

    def forget(self, entry_ids: str | Sequence[str], *, reason: str = "") -> list[Forgotten]:
        """Erase these entries of this agent everywhere the store keeps them (tombstones
        stay); idempotent."""
        return self.run(self._forget(entry_ids, reason))

    def demote(
        self, *, older_than: Duration | None = None, limit: int | None = None
    ) -> DemotionReport:
        """One demotion pass over this agent's entries unused for ``older_than`` (a
        ``Duration``; default: the settings' ``older_than``): each is compressed, verified,
        and made warm only when no critical fact was lost."""
        return self.run(self._demote(older_than, limit))

    # -- async -----------------------------------------------------------------------------

    async def aadd(
        self,
        text: str,
        *,
        occurred_at: datetime | None = None,
        tags: Sequence[str] = (),
        metadata: Mapping[str, JSON] | None = None,
    ) -> str:
        """``add`` for asyncio."""
        return await self.arun(self._add(text, occurred_at, tags, metadata))

    async def asearch(
        self, query: str, *, k: int = 5, include_source: str = "auto"
    ) -> list[SearchHit]:
        """``search`` for asyncio."""
        return await self.arun(self._search(query, k, include_source))

    async def aget(self, entry_id: str) -> Entry:
        """``get`` for asyncio."""
        return await self.arun(self._get(entry_id))

    async def acontext(self, query_or_ids: str | Sequence[str], *, k: int = 5) -> RenderedContext:
        """``context`` for asyncio."""
        return await self.arun(self._context(query_or_ids, k))

    async def aforget(self, entry_ids: str | Sequence[str], *, reason: str = "") -> list[Forgotten]:
        """``forget`` for asyncio."""
        return await self.arun(self._forget(entry_ids, reason))

    async def ademote(
        self, *, older_than: Duration | None = None, limit: int | None = None
    ) -> DemotionReport:
        """``demote`` for asyncio (a pass on SQLite keeps this memory's thread busy)."""
        return await self.arun(self._demote(older_than, limit))


def _utc_now() -> datetime:
    return datetime.now(UTC)
