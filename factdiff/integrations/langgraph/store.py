"""``FactdiffStore``: LangGraph's ``BaseStore`` over a factdiff store (see the package
docstring for how items map to entries)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from factdiff.demotion.demoter import Demoter, DemotionReport
from factdiff.demotion.settings import DemotionSettings
from factdiff.errors import InputError
from factdiff.inputs.times import parse_duration
from factdiff.integrations.langgraph.filters import check_filter, matches
from factdiff.integrations.langgraph.items import (
    ITEM_MARK,
    ItemAddress,
    item_metadata,
    item_tag,
    placement,
    render_value,
)
from factdiff.integrations.langgraph.reads import (
    Loaded,
    copies,
    entry_view_json,
    listed_items,
    load_value,
    newest,
)
from factdiff.memory import Duration, Memory
from factdiff.retrieve.hits import SearchHit
from factdiff.retrieve.search import record_use
from factdiff.settings import Settings, load_settings
from factdiff.settings.retrieval import RetrievalSettings
from factdiff.store import MemoryStore
from factdiff.store.model import NewEntry, Tier
from factdiff.values.base import JSON

__all__ = ["FactdiffSearchItem", "FactdiffStore"]

REPLACED = "langgraph: replaced by a newer put of the same key"
DELETED = "langgraph: deleted"


class FactdiffSearchItem(SearchItem):
    """A ``SearchItem`` with what factdiff knows of the hit in ``factdiff``: the keys of
    ``factdiff search --json`` (``entry_id``, ``tier``, ``score``, ``matched``, ``text`` - a
    warm entry's narrative -, ``facts``, ``known_gaps``, ``gap_hit``, ``schema``,
    ``occurred_at``, ``source``, ``verified_share``, ``unverified``); ``dict()`` includes it
    under ``"factdiff"``."""

    __slots__ = ("factdiff",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],  # Any: LangGraph's Item.value type
        created_at: datetime,
        updated_at: datetime,
        score: float | None,
        factdiff: Mapping[str, JSON],
    ) -> None:
        super().__init__(namespace, key, value, created_at, updated_at, score)
        self.factdiff = dict(factdiff)

    def dict(self) -> builtins.dict[str, Any]:  # Any: LangGraph's Item.dict type
        """LangGraph's ``SearchItem.dict()`` and ``"factdiff"``."""
        result: builtins.dict[str, Any] = super().dict()
        result["factdiff"] = self.factdiff
        return result


class FactdiffStore(BaseStore):
    """LangGraph long-term memory kept as verified factdiff entries.

    ``target``: a SQLite path or a ``postgresql://`` DSN (opened, and closed by ``close``),
    or an open ``factdiff.Memory`` (its store is used; closing it stays its owner's job).
    ``agent``: keep every namespace under this one agent (its labels all become tags) instead
    of the first label naming the agent. ``schema``: the fact schema new entries are
    compressed under (default: the agent's assigned one). ``clock``: the time of writes and
    uses (default: the wall clock, UTC). ``settings``: demotion's configuration (default:
    ``factdiff.settings.load_settings()``).
    """

    def __init__(
        self,
        target: str | Path | Memory,
        *,
        agent: str | None = None,
        schema: str | None = None,
        clock: Callable[[], datetime] | None = None,
        settings: Settings | None = None,
    ) -> None:
        if agent is not None and not agent.strip():
            raise InputError("agent must not be blank: name one, or leave it out")
        self._agent = agent
        self._schema = schema
        self._clock = clock or _utc_now
        self._settings = settings
        if isinstance(target, Memory):
            self._memory, self._owned = target, False
        else:
            self._memory, self._owned = Memory(target, agent=agent or ITEM_MARK), True

    @property
    def memory(self) -> Memory:
        """The ``Memory`` whose store this one uses (``memory.run(work)`` reaches the store;
        its own agent is not one of the store's namespaces)."""
        return self._memory

    def close(self) -> None:
        """Close the store when this object opened it (idempotent)."""
        if self._owned:
            self._memory.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def demote(
        self,
        *,
        older_than: Duration | None = None,
        agent: str | None = None,
        limit: int | None = None,
    ) -> DemotionReport:
        """One demotion pass over the entries unused for ``older_than`` (default: the
        settings' ``older_than``) of ``agent`` (default: every agent in the store): each is
        compressed, verified, and made warm only when no critical fact was lost."""
        return self._memory.run(self._demotion(older_than, agent, limit))

    async def ademote(
        self,
        *,
        older_than: Duration | None = None,
        agent: str | None = None,
        limit: int | None = None,
    ) -> DemotionReport:
        """``demote`` for asyncio."""
        return await self._memory.arun(self._demotion(older_than, agent, limit))

    def _demotion(
        self, older_than: Duration | None, agent: str | None, limit: int | None
    ) -> Callable[[MemoryStore], DemotionReport]:
        demotion = DemotionSettings.from_settings(self._settings or load_settings())
        if older_than is not None:
            try:
                seconds = parse_duration(older_than)
            except ValueError as exc:
                raise InputError(f"older_than {exc}") from None
            demotion = replace(demotion, older_than=timedelta(seconds=seconds))
        now = self._clock()
        return lambda store: Demoter(store, demotion).run(now, agent=agent, limit=limit)

    # -- BaseStore -------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops``: reads in order, then the puts (the last per key wins), as LangGraph's
        own stores do; results in the order of ``ops``."""
        work = self._work(ops)
        return self._memory.run(work)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` without blocking the event loop."""
        work = self._work(ops)
        return await self._memory.arun(work)

    # -- the work --------------------------------------------------------------------------

    def _work(self, ops: Iterable[Op]) -> Callable[[MemoryStore], list[Result]]:
        """Check every op, then the work as a function of the store."""
        todo = list(ops)
        for op in todo:
            _check_op(op)
        now = self._clock()
        return lambda store: self._run(store, todo, now)

    def _run(self, store: MemoryStore, ops: list[Op], now: datetime) -> list[Result]:
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(store, op))
            elif isinstance(op, SearchOp):
                results.append(self._search(store, op, now))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(store, op))
            else:
                puts[(op.namespace, op.key)] = op
                results.append(None)
        if puts:
            self._put(store, list(puts.values()), now)
        return results

    def _get(self, store: MemoryStore, op: GetOp) -> Item | None:
        if not op.namespace:
            return None
        agent, _ = placement(op.namespace, self._agent)
        found = newest(copies(store, agent, op.namespace, op.key))
        loaded = None if found is None else load_value(store, found.entry.id)
        if loaded is None:
            return None
        return Item(
            value=loaded.value,
            key=op.key,
            namespace=op.namespace,
            created_at=loaded.stored.address.created_at,
            updated_at=loaded.stored.entry.created_at,
        )

    def _put(self, store: MemoryStore, ops: list[PutOp], now: datetime) -> None:
        """Write the new values (one transaction), then erase the entries they replace or
        delete: a crash in between leaves the old entry too, which reads never return (the
        newest wins) and the next put or delete of the key erases."""
        entries: list[NewEntry] = []
        replaced: list[str] = []
        deleted: list[str] = []
        for op in ops:
            agent, labels = placement(op.namespace, self._agent)
            old = copies(store, agent, op.namespace, op.key)
            (deleted if op.value is None else replaced).extend(item.entry.id for item in old)
            if op.value is None:
                continue
            latest = newest(old)
            created = now if latest is None else latest.address.created_at
            entries.append(
                NewEntry(
                    agent,
                    render_value(op.value),
                    metadata=item_metadata(ItemAddress(op.namespace, op.key, created)),
                    schema=self._schema,
                    tags=(*labels, ITEM_MARK, item_tag(op.namespace, op.key)),
                )
            )
        if entries:
            store.add_many(entries, now=now)
        if replaced:
            store.forget(replaced, now=now, reason=REPLACED)
        if deleted:
            store.forget(deleted, now=now, reason=DELETED)

    def _search(self, store: MemoryStore, op: SearchOp, now: datetime) -> list[SearchItem]:
        if op.filter:
            check_filter(op.filter)
        if op.limit <= 0:
            return []
        start = max(op.offset, 0)
        query = (op.query or "").strip()
        if query:
            page = self._query_items(store, op, query, start + op.limit, now)[start:]
        else:
            page = [
                _search_item(loaded, None, entry_view_json(store, loaded.stored.entry))
                for loaded in self._listed(store, op, start, start + op.limit)
            ]
        _record_use(store, page, now)
        return list(page)

    def _scope(self, prefix: tuple[str, ...]) -> list[str] | None:
        """The agents a namespace prefix can hold (None: every agent)."""
        if self._agent is not None:
            return [self._agent]
        if prefix:
            return [prefix[0]]
        return None

    def _listed(self, store: MemoryStore, op: SearchOp, start: int, stop: int) -> list[Loaded]:
        """Without a query: the prefix's items, newest first, that pass the filter, from
        ``start`` to ``stop`` (values are read only for those, and to apply the filter)."""
        agents = self._scope(op.namespace_prefix)
        if agents is None:
            agents = [counts.agent for counts in store.agent_counts()]
        listed = listed_items(store, agents, op.namespace_prefix)
        if not op.filter:
            listed = listed[start:stop]
            start, stop = 0, len(listed)
        found: list[Loaded] = []
        for stored in listed:
            loaded = load_value(store, stored.entry.id)
            if loaded is not None and matches(loaded.value, op.filter):
                found.append(loaded)
                if len(found) == stop:
                    break
        return found[start:]

    def _query_items(
        self, store: MemoryStore, op: SearchOp, query: str, wanted: int, now: datetime
    ) -> list[FactdiffSearchItem]:
        """With a query: factdiff's search over the prefix's agent (or every agent), asked for
        more hits until ``wanted`` of them are items under the prefix that pass the filter;
        a key found twice (a replace interrupted before its erasure) shows its newest value."""
        scope = self._scope(op.namespace_prefix)
        agent = None if scope is None else scope[0]
        prefix = op.namespace_prefix
        k = max(2 * wanted, 10)
        while True:
            hits: list[SearchHit] = store.search(query, agent=agent, k=k, touch=False, now=now)
            found: dict[tuple[tuple[str, ...], str], FactdiffSearchItem] = {}
            for hit in hits:
                item = _hit_item(store, hit, prefix, op.filter)
                if item is None:
                    continue
                held = found.get((item.namespace, item.key))
                if held is None or held.updated_at < item.updated_at:
                    found[(item.namespace, item.key)] = item  # the newest value, best rank
            if len(found) >= wanted or len(hits) < k:
                return list(found.values())
            k *= 4

    def _list_namespaces(self, store: MemoryStore, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        first = next(
            (
                c.path[0]
                for c in conditions
                if c.match_type == "prefix" and c.path and c.path[0] != "*"
            ),
            None,
        )
        agents = self._scope(() if first is None else (first,))
        if agents is None:
            agents = [counts.agent for counts in store.agent_counts()]
        namespaces = {stored.address.namespace for stored in listed_items(store, agents, ())}
        kept = [ns for ns in namespaces if all(_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = [ns[: op.max_depth] for ns in kept]
        ordered = sorted(set(kept))
        return ordered[op.offset : op.offset + op.limit]


def _check_op(op: Op) -> None:
    """LangGraph's namespace rules for every op (``batch`` may be called directly), and this
    store's: a put needs a namespace not rooted at ``langgraph``, a JSON value, no TTL."""
    if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
        raise InputError(f"unknown store operation {type(op).__name__}: use LangGraph's ops")
    validate_op_namespace(op)
    if isinstance(op, PutOp):
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if op.namespace[0] == "langgraph":
            raise InvalidNamespaceError(
                f'Root label for namespace cannot be "langgraph". Got: {op.namespace}'
            )
        if op.ttl is not None:
            raise InputError("FactdiffStore does not expire items: put with ttl=None")
        if op.value is not None:
            render_value(op.value)


def _hit_item(
    store: MemoryStore, hit: SearchHit, prefix: tuple[str, ...], conditions: dict[str, Any] | None
) -> FactdiffSearchItem | None:
    """The item a search hit holds, if it is one under ``prefix`` that passes the filter."""
    loaded = load_value(store, hit.entry_id, hit.source)
    if loaded is None or loaded.stored.address.namespace[: len(prefix)] != prefix:
        return None
    if not matches(loaded.value, conditions):
        return None
    return _search_item(loaded, hit.score, hit.to_json())


def _search_item(
    loaded: Loaded, score: float | None, view: Mapping[str, JSON]
) -> FactdiffSearchItem:
    return FactdiffSearchItem(
        namespace=loaded.stored.address.namespace,
        key=loaded.stored.address.key,
        value=loaded.value,
        created_at=loaded.stored.address.created_at,
        updated_at=loaded.stored.entry.created_at,
        score=score,
        factdiff=view,
    )


def _record_use(store: MemoryStore, items: list[FactdiffSearchItem], now: datetime) -> None:
    """What a factdiff search records (``record_use``), for the items returned only."""
    used = [
        (
            str(item.factdiff["entry_id"]),
            item.factdiff.get("tier") == Tier.WARM.value and bool(item.factdiff.get("source")),
        )
        for item in items
    ]
    record_use(store, used, now, RetrievalSettings())


def _matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: ``prefix`` or ``suffix``, ``*`` matching any label."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InputError(f"unsupported namespace match {condition.match_type!r}: prefix or suffix")
    return all(wanted in ("*", label) for label, wanted in pairs)


def _utc_now() -> datetime:
    return datetime.now(UTC)
