"""``FactdiffStore``: LangGraph's ``BaseStore`` on factdiff, against the real ``langgraph``
package, on SQLite and PostgreSQL.

No conformance suite for stores ships with ``langgraph`` (``langgraph-checkpoint-conformance``
covers checkpointers only), so the behaviours its in-memory store documents are checked by
running the same operations on ``InMemoryStore`` and on ``FactdiffStore`` and comparing:
put, get, delete, search (prefix, filter, limit, offset) and list_namespaces (prefix, suffix,
wildcards, max_depth, limit, offset). Then what factdiff adds: search by facts, the facts and
known gaps of each hit, values read back from the verified cold archive of warm entries,
and erasure of replaced values; and a compiled ``StateGraph`` whose nodes remember and recall
through the store.
"""

from __future__ import annotations

import asyncio
import itertools
import operator
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, TypedDict

import pytest

from tests.extras import missing_extra

pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    Op,
    PutOp,
    SearchItem,
)
from langgraph.store.memory import InMemoryStore

from factdiff import Memory
from factdiff.errors import InputError
from factdiff.integrations.langgraph import FactdiffSearchItem, FactdiffStore, UnsupportedFilter
from factdiff.integrations.langgraph.items import (
    ITEM_MARK,
    ItemAddress,
    item_metadata,
    item_tag,
    render_value,
)
from factdiff.integrations.langgraph.store import DELETED, REPLACED
from factdiff.store import Tier
from tests.conftest import worked

NOW = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
REFUND = {
    "note": "Refund of $1,249.00 for order 88213 approved on 2026-03-14.",
    "status": "open",
    "amount": 1249,
}
CALL = {"note": "Irene Costa called about invoice INV-9182.", "status": "done", "amount": 0}

# the namespaces of LangGraph's own list_namespaces tests
NAMESPACES = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("admin", "users", "789"),
]


def ticking() -> Callable[[], datetime]:
    """A clock one second later at every call: every batch has its own time."""
    seconds = itertools.count()
    return lambda: NOW + timedelta(seconds=next(seconds))


@pytest.fixture
def store(target: str) -> Iterator[FactdiffStore]:
    with FactdiffStore(target, schema="customer_service", clock=ticking()) as opened:
        yield opened


def entries(store: FactdiffStore, agent: str) -> list[Any]:
    return store.memory.run(lambda s: list(s.entries(agent=agent)))


def addressed(items: list[SearchItem]) -> set[tuple[tuple[str, ...], str, str]]:
    return {(item.namespace, item.key, repr(sorted(item.value.items()))) for item in items}


def fact_values(item: FactdiffSearchItem, field: str) -> list[object]:
    """The canonical values of ``field`` in a hit's facts."""
    facts = item.factdiff["facts"]
    assert isinstance(facts, dict)
    found = facts.get(field, [])
    assert isinstance(found, list)
    return [fact["value"] for fact in found if isinstance(fact, dict)]


# -- put, get, replace, delete -------------------------------------------------------------


def test_put_get_replace_delete(store: FactdiffStore) -> None:
    ns = ("support-bot", "acme")
    assert store.get(ns, "refund") is None
    store.put(ns, "refund", REFUND)
    item = store.get(ns, "refund")
    assert isinstance(item, Item)
    assert (item.namespace, item.key, item.value) == (ns, "refund", REFUND)
    assert item.created_at == item.updated_at
    assert NOW < item.created_at < NOW + timedelta(minutes=1)  # the store's clock
    (entry,) = entries(store, "support-bot")
    assert entry.content == (
        '{"amount":1249,"note":"Refund of $1,249.00 for order 88213 approved on 2026-03-14.",'
        '"status":"open"}'
    )
    assert entry.tags == ("acme", ITEM_MARK, item_tag(ns, "refund"))
    assert entry.metadata["langgraph"]["namespace"] == list(ns)

    store.put(ns, "refund", CALL)
    replaced = store.get(ns, "refund")
    assert replaced is not None
    assert replaced.value == CALL
    assert replaced.created_at == item.created_at  # when the key was first put
    assert replaced.updated_at > item.updated_at
    assert store.search(("support-bot",), query="order 88213") == []  # no stale copy
    (new,) = entries(store, "support-bot")
    stone = store.memory.run(lambda s: s.tombstone(entry.id))
    assert stone is not None
    assert stone.reason == REPLACED

    store.delete(ns, "refund")
    assert store.get(ns, "refund") is None
    assert entries(store, "support-bot") == []
    assert store.search(("support-bot",), query="INV-9182") == []
    assert store.list_namespaces() == []
    gone = store.memory.run(lambda s: s.tombstone(new.id))
    assert gone is not None
    assert gone.reason == DELETED
    store.delete(ns, "refund")  # nothing to delete: no error, as in LangGraph's stores


def test_an_interrupted_replace_shows_the_newest_value_until_the_next_put(
    store: FactdiffStore,
) -> None:
    ns = ("support-bot", "acme")
    store.put(ns, "refund", REFUND)
    first = store.get(ns, "refund")
    assert first is not None
    newer = {**REFUND, "status": "closed"}
    address = ItemAddress(ns, "refund", first.created_at)
    store.memory.run(  # what a crash between the write and the erasure leaves
        lambda s: s.add(
            "support-bot",
            render_value(newer),
            now=NOW + timedelta(hours=1),
            metadata=item_metadata(address),
            tags=("acme", ITEM_MARK, item_tag(ns, "refund")),
        )
    )
    assert len(entries(store, "support-bot")) == 2
    again = store.get(ns, "refund")
    assert again is not None
    assert again.value == newer
    assert [item.value for item in store.search(ns)] == [newer]
    assert [item.value for item in store.search(ns, query="order 88213")] == [newer]
    store.put(ns, "refund", CALL)
    (left,) = entries(store, "support-bot")
    assert left.content == render_value(CALL)


def test_a_batch_reads_first_then_writes_the_last_put_of_each_key(store: FactdiffStore) -> None:
    ns = ("support-bot", "acme")
    ops: list[Op] = [
        PutOp(ns, "k", {"v": 1}),
        GetOp(ns, "k"),
        PutOp(ns, "k", {"v": 2}),
        PutOp(ns, "other", {"v": 3}),
        PutOp(ns, "other", None),
    ]
    reference = InMemoryStore()
    assert store.batch(ops) == reference.batch(ops) == [None] * 5
    for key in ("k", "other"):
        ours, theirs = store.get(ns, key), reference.get(ns, key)
        assert (ours and ours.value) == (theirs and theirs.value)
    assert len(entries(store, "support-bot")) == 1


# -- LangGraph's documented behaviours, side by side with its in-memory store --------------


def fill(*stores: BaseStore, skip: tuple[str, ...] = ()) -> None:
    for number, ns in enumerate(NAMESPACES):
        for each in stores:
            if f"id_{number}" in skip:
                continue
            each.put(ns, f"id_{number}", {"data": f"value_{number:02d}", "n": number})


LISTINGS: list[dict[str, Any]] = [
    {},
    {"prefix": ("a",)},
    {"prefix": ("a", "b")},
    {"prefix": ("a", "b", "d")},
    {"suffix": ("f",)},
    {"prefix": ("a",), "suffix": ("f",)},
    {"prefix": ("a", "*")},
    {"prefix": ("*", "b")},
    {"suffix": ("*", "f")},
    {"prefix": ("users",), "max_depth": 2},
    {"max_depth": 1},
    {"max_depth": 2},
    {"max_depth": 3},
    {"prefix": ("a",), "max_depth": 3},
    {"limit": 3},
    {"limit": 3, "offset": 2},
    {"offset": 7},
    {"prefix": ("nonexistent",)},
    {"suffix": ("a", "b", "c", "d", "e", "f")},
]


def test_list_namespaces_as_the_in_memory_store(store: FactdiffStore) -> None:
    reference = InMemoryStore()
    fill(store, reference)
    for options in LISTINGS:
        assert store.list_namespaces(**options) == reference.list_namespaces(**options), options
    store.delete(("a", "b", "f"), "id_3")
    store.delete(("users", "123"), "id_6")
    # the in-memory store keeps listing a namespace whose last item was deleted (an empty
    # dict stays behind); its PostgreSQL store does not, nor does this one: compare with a
    # reference that never held them
    remaining = InMemoryStore()
    fill(remaining, skip=("id_3", "id_6"))
    for options in LISTINGS:
        assert store.list_namespaces(**options) == remaining.list_namespaces(**options), options


SEARCHES: list[dict[str, Any]] = [
    {"namespace_prefix": ()},
    {"namespace_prefix": ("a",)},
    {"namespace_prefix": ("a", "b")},
    {"namespace_prefix": ("a", "b", "d", "e")},
    {"namespace_prefix": ("users",), "filter": {"n": 7}},
    {"namespace_prefix": (), "filter": {"n": {"$gte": 3, "$lt": 6}}},
    {"namespace_prefix": ("a",), "filter": {"data": {"$ne": "value_00"}}},
    {"namespace_prefix": ("a",), "filter": {"data": "value_04"}},
    {"namespace_prefix": ("zzz",)},
]


def test_search_finds_what_the_in_memory_store_finds(store: FactdiffStore) -> None:
    reference = InMemoryStore()
    fill(store, reference)
    for search in SEARCHES:
        options = dict(search)
        prefix = options.pop("namespace_prefix")
        ours = store.search(prefix, limit=100, **options)
        assert addressed(ours) == addressed(reference.search(prefix, limit=100, **options))
        assert all(isinstance(item, FactdiffSearchItem) and item.score is None for item in ours)


def test_search_pages_newest_first(store: FactdiffStore) -> None:
    fill(store)
    everything = store.search((), limit=100)
    assert [item.key for item in everything] == [f"id_{n}" for n in reversed(range(9))]
    assert [item.updated_at for item in everything] == sorted(
        (item.updated_at for item in everything), reverse=True
    )
    pages = [store.search((), limit=4, offset=offset) for offset in (0, 4, 8)]
    assert [len(page) for page in pages] == [4, 4, 1]
    assert [item.key for page in pages for item in page] == [item.key for item in everything]
    assert store.search((), limit=0) == []
    assert store.search((), offset=20) == []


# -- what factdiff adds --------------------------------------------------------------------


def test_search_by_facts_within_the_namespace(store: FactdiffStore, target: str) -> None:
    store.put(("support-bot", "acme"), "refund", REFUND)
    store.put(("support-bot", "beta"), "refund", {**REFUND, "status": "closed"})
    store.put(("sales-bot", "acme"), "quote", {"note": "Order 88213 was quoted at $1,249.00."})
    with Memory(target, agent="support-bot") as plain:  # an entry that is not an item
        plain.add("Order 88213 came up in a call.")

    (acme,) = store.search(("support-bot", "acme"), query="order 88213")
    assert isinstance(acme, FactdiffSearchItem)
    assert (acme.namespace, acme.key, acme.value) == (("support-bot", "acme"), "refund", REFUND)
    assert acme.score is not None
    assert acme.score >= 2  # a distinctive fact held
    assert acme.factdiff["tier"] == "hot"
    assert fact_values(acme, "inventory.identifier") == ["88213"]
    assert acme.factdiff["known_gaps"] == []
    assert acme.dict()["factdiff"] == acme.factdiff

    support = store.search(("support-bot",), query="$1,249 order 88213")
    assert {item.namespace for item in support} == {
        ("support-bot", "acme"),
        ("support-bot", "beta"),
    }
    everywhere = store.search((), query="order 88213")
    assert {item.namespace[0] for item in everywhere} == {"support-bot", "sales-bot"}
    (closed,) = store.search(("support-bot",), query="order 88213", filter={"status": "closed"})
    assert closed.namespace == ("support-bot", "beta")
    first, second = (store.search((), query="88213", limit=1, offset=n) for n in (0, 1))
    assert [first[0].key, second[0].key] == [item.key for item in everywhere[:2]]
    assert store.search(("support-bot",), query="nothing like it") == []


def test_entries_that_are_not_items_stay_out(store: FactdiffStore, target: str) -> None:
    store.put(("support-bot", "acme"), "refund", REFUND)
    with Memory(target, agent="support-bot") as plain:
        plain.add("Order 88213 came up in a call.", tags=("acme", ITEM_MARK))
    assert store.list_namespaces() == [("support-bot", "acme")]
    assert [item.key for item in store.search(("support-bot",))] == ["refund"]
    assert [item.key for item in store.search((), query="order 88213")] == ["refund"]


def test_a_namespace_outranked_by_its_neighbours_is_still_found(store: FactdiffStore) -> None:
    crowd = [
        PutOp(("support-bot", "other"), f"n{n}", {"note": f"Order 88213 order 88213, call {n}."})
        for n in range(25)
    ]
    store.batch([*crowd, PutOp(("support-bot", "acme"), "quiet", {"text": "re 88213"})])
    everything = store.search(("support-bot",), query="order 88213", limit=100)
    assert len(everything) == 26
    assert everything[-1].key == "quiet"  # ranked below the 10 hits asked for first
    (found,) = store.search(("support-bot", "acme"), query="order 88213", limit=5)
    assert found.key == "quiet"


def test_warm_items_read_back_their_source_with_narrative_facts_and_gaps(
    store: FactdiffStore,
) -> None:
    source = {"transcript": worked("source"), "channel": "phone"}
    store.put(("support-bot", "acme"), "call", source)
    report = store.demote(older_than="0s")
    assert report.counts == {"clean": 1}
    (entry,) = entries(store, "support-bot")
    assert entry.tier == Tier.WARM

    item = store.get(("support-bot", "acme"), "call")
    assert item is not None
    assert item.value == source  # from the verified cold archive
    (hit,) = store.search(("support-bot",), query="INV-9182")
    assert isinstance(hit, FactdiffSearchItem)
    assert hit.value == source
    assert hit.factdiff["tier"] == "warm"
    assert hit.factdiff["text"] == entry.warm.narrative
    assert len(entry.warm.narrative) < len(render_value(source))  # compressed, verified
    assert "INV-9182" in str(hit.factdiff["facts"])
    assert hit.factdiff["known_gaps"] == []
    (listed,) = store.search(("support-bot", "acme"))
    assert isinstance(listed, FactdiffSearchItem)
    assert listed.factdiff["text"] == entry.warm.narrative
    assert listed.value == source


def test_one_agent_for_every_namespace(target: str) -> None:
    with FactdiffStore(target, agent="bot", clock=ticking()) as store:
        store.put(("users", "u1"), "refund", REFUND)
        store.put(("users", "u2", "notes"), "call", CALL)
        (entry, _) = entries(store, "bot")
        assert entry.tags[:2] == ("users", "u1")
        assert store.list_namespaces() == [("users", "u1"), ("users", "u2", "notes")]
        assert store.list_namespaces(prefix=("users", "u2")) == [("users", "u2", "notes")]
        (hit,) = store.search(("users", "u1"), query="order 88213")
        assert hit.key == "refund"
        assert store.search(("users", "u2"), query="order 88213") == []


# -- bad input -------------------------------------------------------------------------------


def test_bad_input_is_refused_and_nothing_is_written(store: FactdiffStore) -> None:
    ns = ("support-bot", "acme")
    int_keyed: dict[Any, str] = {1: "one"}  # Any: what a caller may pass despite the types
    with pytest.raises(InputError, match="JSON object keys are strings"):
        store.batch([PutOp(ns, "good", {"v": 1}), PutOp(ns, "bad", int_keyed)])
    with pytest.raises(InputError, match="is a set"):
        store.put(ns, "bad", {"tags": {"a"}})
    with pytest.raises(InvalidNamespaceError):
        store.put(("support.bot",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp((), "k", {"v": 1})])
    with pytest.raises(NotImplementedError):
        store.put(ns, "k", {"v": 1}, ttl=5)
    with pytest.raises(InputError, match="ttl=None"):
        store.batch([PutOp(ns, "k", {"v": 1}, ttl=5)])
    with pytest.raises(UnsupportedFilter):
        store.search(ns, filter={"v": {"$in": [1]}})
    with pytest.raises(InputError, match="blank"):
        FactdiffStore(":memory:", agent=" ")
    assert entries(store, "support-bot") == []
    assert store.list_namespaces() == []


# -- async, and a store lent by a Memory -----------------------------------------------------


def test_async_operations(store: FactdiffStore) -> None:
    async def main() -> None:
        ns = ("support-bot", "acme")
        await asyncio.gather(*(store.aput(ns, f"t{n}", {"ticket": f"T-{n:04d}"}) for n in range(6)))
        item = await store.aget(ns, "t3")
        assert item is not None
        assert item.value == {"ticket": "T-0003"}
        (hit,) = await store.asearch(("support-bot",), query="T-0003")
        assert hit.key == "t3"
        assert await store.alist_namespaces() == [ns]
        await store.adelete(ns, "t3")
        assert await store.aget(ns, "t3") is None
        assert (await store.ademote(older_than="0s")).processed == 5

    asyncio.run(main())


def test_a_memory_lends_its_store_and_keeps_it(target: str) -> None:
    with Memory(target, agent="support-bot") as memory:
        store = FactdiffStore(memory, clock=ticking())
        store.put(("support-bot",), "k", {"v": 1})
        store.close()  # not ours to close
        assert memory.run(lambda s: len(list(s.entries()))) == 1
        assert store.memory is memory


# -- a compiled graph --------------------------------------------------------------------------


class Turn(TypedDict):
    customer: str
    said: str
    recalled: Annotated[list[str], operator.add]


def remember(state: Turn, *, store: BaseStore) -> dict[str, list[str]]:
    namespace = ("support-bot", state["customer"])
    count = len(store.search(namespace, limit=100))
    store.put(namespace, f"turn-{count}", {"said": state["said"]})
    return {"recalled": []}


def recall(state: Turn, *, store: BaseStore) -> dict[str, list[str]]:
    hits = store.search(("support-bot", state["customer"]), query=state["said"], limit=3)
    return {"recalled": [str(hit.value["said"]) for hit in hits]}


async def arecall(state: Turn, *, store: BaseStore) -> dict[str, list[str]]:
    hits = await store.asearch(("support-bot", state["customer"]), query=state["said"], limit=3)
    return {"recalled": [str(hit.value["said"]) for hit in hits]}


def graph(store: BaseStore, recaller: Any) -> Any:
    builder = StateGraph(Turn)
    builder.add_node("remember", remember)
    builder.add_node("recall", recaller)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_graph_remembers_and_recalls_through_the_store(store: FactdiffStore) -> None:
    app = graph(store, recall)
    app.invoke({"customer": "acme", "said": "Invoice INV-9182 is wrong.", "recalled": []})
    app.invoke({"customer": "beta", "said": "Order 88213 never arrived.", "recalled": []})
    out = app.invoke({"customer": "acme", "said": "About INV-9182 again.", "recalled": []})
    assert "Invoice INV-9182 is wrong." in out["recalled"]
    assert "Order 88213 never arrived." not in out["recalled"]  # another customer's
    assert store.list_namespaces() == [("support-bot", "acme"), ("support-bot", "beta")]
    assert {item.key for item in store.search(("support-bot", "acme"))} == {"turn-0", "turn-1"}

    store.demote(older_than="0s")  # compressed memories are still recalled
    later = asyncio.run(
        graph(store, arecall).ainvoke(
            {"customer": "acme", "said": "INV-9182 status?", "recalled": []}
        )
    )
    assert "Invoice INV-9182 is wrong." in later["recalled"]
