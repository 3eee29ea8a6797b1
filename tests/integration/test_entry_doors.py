"""One rule per input at every way in, on SQLite and PostgreSQL: a blank entry and a
malformed schema name are refused by ``Store.add``, ``Store.add_many``, ``POST /v1/entries``
and ``/v1/entries/batch`` (and a schema name by ``/v1/check``, ``/v1/compress`` and agent
assignments) with the same message, and nothing is stored."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from factdiff.errors import InputError
from factdiff.schema.names import BadSchemaName, check_reference
from factdiff.store import BadEntry, BlankEntry, MemoryStore, NewEntry, open_store
from tests.integration.service_helpers import client, make_keys, running_api

NOW = datetime(2026, 3, 1, tzinfo=UTC)
BLANKS = ["", " ", "\n\t  \r\n", "\u00a0\u2003"]
BAD_NAMES = ["/etc/passwd", "../..", "..", "", " ", "a b", "caf\u00e9", "x" * 101, "-x", "a/b@2"]


def _name_message(name: str) -> str:
    with pytest.raises(BadSchemaName) as raised:
        check_reference(name)
    return str(raised.value)


def _refused(response: httpx.Response) -> str:
    assert response.status_code == 422, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "invalid_request"
    message: str = error["message"]
    return message


def _nothing_stored(target: str) -> None:
    with open_store(target) as store:
        assert store.entry_page(limit=10).total == 0


@pytest.mark.parametrize("text", BLANKS)
def test_blank_entries_are_refused_at_every_door(target: str, text: str) -> None:
    with open_store(target) as store:
        with pytest.raises(BlankEntry) as single:
            store.add("a", text, now=NOW)
        assert str(single.value) == BlankEntry.MESSAGE
        batch = [NewEntry("a", "kept?"), NewEntry("a", text)]
        with pytest.raises(BadEntry) as many:
            store.add_many(batch, now=NOW)
        assert (many.value.position, many.value.detail) == (2, BlankEntry.MESSAGE)
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.alice) as http:
        assert _refused(http.post("/v1/entries", json={"text": text})) == BlankEntry.MESSAGE
        body = {"entries": [{"text": "kept?"}, {"text": text}]}
        assert _refused(http.post("/v1/entries/batch", json=body)) == (
            f"entry 2: {BlankEntry.MESSAGE}"
        )
    _nothing_stored(target)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_malformed_schema_names_are_refused_at_every_door(target: str, name: str) -> None:
    message = _name_message(name)
    with open_store(target) as store:
        with pytest.raises(BadSchemaName, match="must be a letter or _"):
            store.add("a", "Invoice INV-1 for $5.", now=NOW, schema=name)
        with pytest.raises(BadSchemaName):
            store.set_agent_schema("a", name)
        assert store.schema_for("a") is None
    keys = make_keys(target)
    with running_api(target) as base, client(base, keys.alice) as http:
        entry = {"text": "Invoice INV-1 for $5.", "schema": name}
        assert _refused(http.post("/v1/entries", json=entry)) == message
        batch = {"entries": [{"text": "kept?"}, entry]}
        assert _refused(http.post("/v1/entries/batch", json=batch)) == f"entry 2: {message}"
        if name:  # an empty name on /v1/check and /v1/compress is the generic schema
            checked = http.post("/v1/check", json={"source": "x", "summary": "x", "schema": name})
            assert _refused(checked) == message
            compressed = http.post("/v1/compress", json={"text": "x", "schema": name})
            assert _refused(compressed) == message
    _nothing_stored(target)


def test_well_formed_names_still_pass(store: MemoryStore) -> None:
    for name in ("customer_service", "_x9", "support_calls@2", "not_registered_yet"):
        entry_id = store.add("a", "Invoice INV-1 for $5.", now=NOW, schema=name)
        assert store.get(entry_id).schema_name == name
    store.set_agent_schema("a", "sales@1")
    assert store.schema_for("a") == "sales@1"
    with pytest.raises(InputError, match="NAME@VERSION"):
        store.add("a", "x", now=NOW, schema="sales@0")
