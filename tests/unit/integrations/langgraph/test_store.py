"""The LangGraph store's public names, and the search item it returns."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.extras import missing_extra

pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))

from langgraph.store.base import BaseStore, SearchItem

import factdiff.integrations.langgraph as langgraph_integration
from factdiff.integrations.langgraph import FactdiffSearchItem, FactdiffStore
from factdiff.values.base import JSON

WHEN = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


def test_public_names_are_pinned() -> None:
    assert sorted(langgraph_integration.__all__) == [
        "FactdiffSearchItem",
        "FactdiffStore",
        "UnsupportedFilter",
    ]
    assert issubclass(FactdiffStore, BaseStore)
    assert FactdiffStore.supports_ttl is False


def test_a_search_item_carries_factdiff_s_view_in_its_dict() -> None:
    view: dict[str, JSON] = {"entry_id": "01J", "tier": "warm", "facts": {}, "known_gaps": []}
    item = FactdiffSearchItem(("support-bot", "acme"), "k", {"v": 1}, WHEN, WHEN, 2.5, view)
    plain = SearchItem(("support-bot", "acme"), "k", {"v": 1}, WHEN, WHEN, 2.5)
    assert isinstance(item, SearchItem)
    assert item == plain  # the same item to LangGraph
    assert item.dict() == {**plain.dict(), "factdiff": view}
    view["tier"] = "hot"
    assert item.factdiff["tier"] == "warm"  # a copy
