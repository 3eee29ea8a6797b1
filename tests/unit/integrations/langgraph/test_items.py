"""How a LangGraph item is written as an entry: canonical JSON, placement, address, tags."""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime

import pytest

from tests.extras import missing_extra

pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))

from factdiff.errors import InputError
from factdiff.integrations.langgraph.items import (
    ITEM_MARK,
    ItemAddress,
    item_metadata,
    item_tag,
    parse_value,
    placement,
    read_address,
    render_value,
)

WHEN = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)


def test_values_render_as_canonical_json_whatever_the_key_order() -> None:
    one = {"b": [1, 2.5, None, True], "a": {"z": "é", "y": "x"}}
    other = {"a": {"y": "x", "z": "é"}, "b": [1, 2.5, None, True]}
    text = render_value(one)
    assert text == render_value(other) == '{"a":{"y":"x","z":"é"},"b":[1,2.5,null,true]}'
    assert parse_value(text) == one


def test_a_tuple_is_written_as_a_list() -> None:
    assert parse_value(render_value({"pair": (1, "2")})) == {"pair": [1, "2"]}


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ({1: "one"}, "the key 1 (int)"),
        ({"nested": {"ok": {2: "x"}}}, "value['nested']['ok'] has the key 2"),
        ({"tags": {"a", "b"}}, "value['tags'] is a set"),
        ({"blob": b"\x00"}, "value['blob'] is a bytes"),
        ({"ratio": math.nan}, "value['ratio'] is nan"),
        ({"list": [1, float("inf")]}, "value['list'][1] is inf"),
        ({"when": WHEN}, "value['when'] is a datetime"),
    ],
)
def test_what_json_cannot_hold_is_refused_and_named(value: dict[str, object], names: str) -> None:
    with pytest.raises(InputError, match=re.escape(names)):
        render_value(value)


@pytest.mark.parametrize("text", ["[1, 2]", "null", "Refund approved.", '{"a": '])
def test_parse_value_refuses_what_is_not_an_object(text: str) -> None:
    with pytest.raises(InputError, match="does not hold a JSON object"):
        parse_value(text)


def test_the_first_label_is_the_agent_unless_one_is_fixed() -> None:
    assert placement(("users", "u1", "notes"), None) == ("users", ("u1", "notes"))
    assert placement(("users",), None) == ("users", ())
    assert placement(("users", "u1"), "bot") == ("bot", ("users", "u1"))


def test_item_tags_tell_addresses_apart() -> None:
    tags = {
        item_tag(("a", "b"), "c"),
        item_tag(("a",), "b"),
        item_tag(("a", "b", "c"), ""),
        item_tag(("ab",), "c"),
    }
    assert len(tags) == 4
    assert all(tag.startswith(f"{ITEM_MARK}:") and len(tag) == len(ITEM_MARK) + 65 for tag in tags)
    assert item_tag(("a", "b"), "c") == item_tag(("a", "b"), "c")


def test_the_address_round_trips_through_metadata() -> None:
    address = ItemAddress(("users", "u1"), "k:1", WHEN)
    metadata = item_metadata(address)
    assert read_address(json.loads(json.dumps(metadata))) == address


@pytest.mark.parametrize(
    "metadata",
    [
        {},
        {"langgraph": "x"},
        {"langgraph": {"namespace": ["a"], "key": 1, "created_at": WHEN.isoformat()}},
        {"langgraph": {"namespace": [1], "key": "k", "created_at": WHEN.isoformat()}},
        {"langgraph": {"namespace": ["a"], "key": "k", "created_at": "yesterday"}},
    ],
)
def test_other_metadata_is_not_an_item(metadata: dict[str, object]) -> None:
    assert read_address(metadata) is None
