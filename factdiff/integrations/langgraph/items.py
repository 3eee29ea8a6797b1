"""How a LangGraph item is written as a factdiff entry, and read back.

* **placement**: the namespace's first label is the entry's agent and the other labels its
  tags (or, with a fixed agent, every label is a tag);
* **content**: the item's value as canonical JSON (``render_value``: sorted keys, no
  whitespace, UTF-8 kept), so the same value is always the same text and content hash;
* **metadata**: ``{"langgraph": {"namespace": [...], "key": ..., "created_at": ...}}``, the
  item's exact address (``ItemAddress``) and when its key was first put;
* **tags** besides the labels: ``langgraph`` on every item, and ``item_tag(namespace, key)``,
  which finds the entries of one key without reading any content.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from factdiff.errors import InputError
from factdiff.integrations import canonical_json
from factdiff.values.base import JSON

__all__ = [
    "ITEM_MARK",
    "ItemAddress",
    "item_metadata",
    "item_tag",
    "parse_value",
    "placement",
    "read_address",
    "render_value",
]

ITEM_MARK = "langgraph"
"""The tag every entry written for a LangGraph item carries."""

_META = "langgraph"


@dataclass(frozen=True)
class ItemAddress:
    """Where an item lives in LangGraph's terms, and when its key was first put."""

    namespace: tuple[str, ...]
    key: str
    created_at: datetime


def placement(namespace: tuple[str, ...], agent: str | None) -> tuple[str, tuple[str, ...]]:
    """The agent and tags of an item in ``namespace``: the first label and the rest, or the
    fixed ``agent`` and every label."""
    if agent is not None:
        return agent, namespace
    return namespace[0], namespace[1:]


def item_tag(namespace: tuple[str, ...], key: str) -> str:
    """The tag of one ``(namespace, key)``: ``langgraph:`` + the SHA-256 of its JSON."""
    address = json.dumps([list(namespace), key], ensure_ascii=False, separators=(",", ":"))
    return f"{ITEM_MARK}:{hashlib.sha256(address.encode('utf-8')).hexdigest()}"


def item_metadata(address: ItemAddress) -> dict[str, JSON]:
    """The entry metadata that records ``address``."""
    return {
        _META: {
            "namespace": list(address.namespace),
            "key": address.key,
            "created_at": address.created_at.isoformat(),
        }
    }


def read_address(metadata: Mapping[str, object]) -> ItemAddress | None:
    """The address an entry's metadata records (None: the entry is not a LangGraph item)."""
    data = metadata.get(_META)
    if not isinstance(data, Mapping):
        return None
    namespace, key, created = data.get("namespace"), data.get("key"), data.get("created_at")
    if not (
        isinstance(namespace, list)
        and all(isinstance(label, str) for label in namespace)
        and isinstance(key, str)
        and isinstance(created, str)
    ):
        return None
    try:
        created_at = datetime.fromisoformat(created)
    except ValueError:
        return None
    return ItemAddress(tuple(str(label) for label in namespace), key, created_at)


def render_value(value: Mapping[str, object]) -> str:
    """``value`` as canonical JSON (``factdiff.integrations.canonical_json.render``)."""
    return canonical_json.render(value, "value")


def parse_value(text: str) -> dict[str, object]:
    """The value ``render_value`` wrote (``InputError`` when the text was changed since, by
    ``factdiff correct`` for example, into something that is not a JSON object)."""
    value = canonical_json.load_object(text)
    if value is None:
        raise InputError(
            "a LangGraph item's entry does not hold a JSON object: "
            "correct it with `factdiff correct` or delete the key"
        )
    return value
