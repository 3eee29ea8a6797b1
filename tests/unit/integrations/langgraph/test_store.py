"""The LangGraph store's public names, and the search item it returns."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from datetime import UTC, datetime

import pytest

from tests.extras import missing_extra

pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))

from langgraph.store.base import BaseStore, SearchItem

import factdiff.integrations.langgraph as langgraph_integration
from factdiff.errors import UsageError
from factdiff.integrations.langgraph import FactdiffSearchItem, FactdiffStore
from factdiff.values.base import JSON

WHEN = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


def test_public_names_are_pinned() -> None:
    assert sorted(langgraph_integration.__all__) == [
        "FactdiffSearchItem",
        "FactdiffStore",
        "LangGraphMissing",
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


def test_without_langgraph_the_import_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [m for m in sys.modules if m.startswith("factdiff.integrations.langgraph")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *_: None)
    with pytest.raises(UsageError, match=r"pip install 'factdiff\[langgraph\]'") as caught:
        importlib.import_module("factdiff.integrations.langgraph")
    assert isinstance(caught.value, ImportError)
