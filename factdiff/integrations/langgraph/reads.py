"""Reading LangGraph items out of a factdiff store: one key's entries, a namespace's items,
an item's value (hot content, or the cold archive of a warm entry), and what factdiff knows
of it (text, facts, known gaps).

Listings read no content: entries are found by their tags (``items``) and their addresses
read from their metadata; values are read only for the items a caller keeps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from factdiff.integrations.langgraph.items import (
    ITEM_MARK,
    ItemAddress,
    item_tag,
    parse_value,
    read_address,
)
from factdiff.retrieve.context import entry_view
from factdiff.retrieve.hits import facts_json
from factdiff.retrieve.schemas import SchemaResolver
from factdiff.store import EntryNotFound, MemoryStore
from factdiff.store.model import Entry, Tier
from factdiff.values.base import JSON

__all__ = [
    "Loaded",
    "StoredItem",
    "copies",
    "entry_view_json",
    "listed_items",
    "load_value",
    "newest",
]

_PAGE = 500


@dataclass(frozen=True)
class StoredItem:
    """An entry that holds a LangGraph item (listed without content) and its address."""

    entry: Entry
    address: ItemAddress

    @property
    def order(self) -> tuple[datetime, str]:
        """Newest last: by when it was written, then by id."""
        return (self.entry.created_at, self.entry.id)


@dataclass(frozen=True)
class Loaded:
    """An item read with its value (``stored.entry`` with its content or warm view)."""

    stored: StoredItem
    value: dict[str, object]


def copies(
    store: MemoryStore, agent: str, namespace: tuple[str, ...], key: str
) -> list[StoredItem]:
    """Every live entry of ``(namespace, key)``, oldest first (one, unless a replace was
    interrupted between writing the new entry and erasing the old one)."""
    found = _tagged(store, agent, item_tag(namespace, key))
    return sorted(
        (item for item in found if (item.address.namespace, item.address.key) == (namespace, key)),
        key=lambda item: item.order,
    )


def newest(items: Iterable[StoredItem]) -> StoredItem | None:
    """The latest written of ``items`` (None if there are none)."""
    return max(items, key=lambda item: item.order, default=None)


def listed_items(
    store: MemoryStore, agents: Iterable[str], prefix: tuple[str, ...]
) -> list[StoredItem]:
    """The items of ``agents`` whose namespace starts with ``prefix``, newest first, each
    ``(namespace, key)`` once (its newest entry)."""
    latest: dict[tuple[tuple[str, ...], str], StoredItem] = {}
    for agent in agents:
        for item in _tagged(store, agent, ITEM_MARK):
            if item.address.namespace[: len(prefix)] != prefix:
                continue
            address = (item.address.namespace, item.address.key)
            held = latest.get(address)
            if held is None or held.order < item.order:
                latest[address] = item
    return sorted(latest.values(), key=lambda item: item.order, reverse=True)


def _tagged(store: MemoryStore, agent: str, tag: str) -> Iterator[StoredItem]:
    after = ""
    while True:
        page = store.entry_page(agent=agent, tag=tag, after=after, limit=_PAGE)
        for entry in page.items:
            address = read_address(entry.metadata)
            if address is not None:
                yield StoredItem(entry, address)
        if page.next_after is None:
            return
        after = str(page.next_after)


def load_value(store: MemoryStore, entry_id: str, source: str | None = None) -> Loaded | None:
    """The entry with its content or warm view, its address and the item's value: the hot
    content, or ``source`` / the cold archive (hash-checked) of a warm entry. None when the
    entry is not a LangGraph item, or was erased meanwhile."""
    try:
        entry = store.get(entry_id)
        address = read_address(entry.metadata)
        if address is None:
            return None
        if entry.tier is Tier.HOT and entry.content is not None:
            text = entry.content
        else:
            text = source if source is not None else store.read_cold(entry_id)
    except EntryNotFound:
        return None
    return Loaded(StoredItem(entry, address), parse_value(text))


def entry_view_json(store: MemoryStore, entry: Entry) -> dict[str, JSON]:
    """What factdiff knows of an entry (loaded with its content or warm view), in the keys of
    a search hit's JSON (``SearchHit.to_json``): text (a warm entry's narrative), facts, known
    gaps, coverage (``verified_share``, ``unverified``); ``score``, ``matched``, ``gap_hit``
    and ``source`` empty, as no query asked."""
    view = entry_view(store, entry, SchemaResolver(store))
    return {
        "entry_id": entry.id,
        "agent": entry.agent_id,
        "tier": entry.tier.value,
        "score": None,
        "matched": [],
        "text": view.text,
        "facts": facts_json(view.record),
        "known_gaps": [gap.to_json() for gap in view.gaps],
        "gap_hit": [],
        "schema": {"name": view.schema_name, "version": view.schema_version},
        "occurred_at": None if entry.occurred_at is None else entry.occurred_at.isoformat(),
        "source": None,
        "verified_share": None if view.coverage is None else round(view.coverage.share, 4),
        "unverified": [] if view.coverage is None else list(view.coverage.texts),
    }
