"""Decision ids are per agent, over HTTP with two agent keys on SQLite and PostgreSQL: bob
learns nothing of alice's ids and cannot take them; ``verify`` names an attestation moved to
another agent behind the store's back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from factdiff.store import MemoryStore, open_store
from tests.integration.conftest import raw
from tests.integration.service_helpers import client, make_keys, running_api

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _add(http: httpx.Client, text: str) -> str:
    added = http.post("/v1/entries", json={"text": text})
    assert added.status_code == 201, added.text
    entry_id: str = added.json()["id"]
    return entry_id


def _attest(http: httpx.Client, decision: str, ids: list[str]) -> httpx.Response:
    return http.post("/v1/attestations", json={"decision": decision, "ids": ids})


def _created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    document: dict[str, Any] = response.json()
    return document


def test_decision_ids_are_per_agent_over_http(target: str) -> None:
    keys = make_keys(target)
    with (
        running_api(target) as base,
        client(base, keys.alice) as alice,
        client(base, keys.bob) as bob,
        client(base, keys.operator) as ops,
    ):
        alices = _add(alice, "Refund of $120 for order ORD-1 approved.")
        bobs = _add(bob, "Refund of $80 for order ORD-2 approved.")
        # bob takes the id first: alice's own decision is untouched by it
        assert _created(_attest(bob, "refund-1", [bobs]))["agent"] == "bob"
        assert _created(_attest(alice, "refund-1", [alices]))["agent"] == "alice"
        # alice's second use of her id is refused; nothing says whether bob holds one
        again = _attest(alice, "refund-1", [alices])
        assert again.status_code == 422
        assert "already attested" in again.json()["error"]["message"]
        assert _created(_attest(alice, "only-alice", [alices]))["agent"] == "alice"
        taken = _attest(bob, "only-alice", [bobs])  # not "already attested": bob's own id
        assert _created(taken)["agent"] == "bob"
        # each reads its own decision; another agent's id is not found, as an unknown one
        mine = alice.get("/v1/attestations/refund-1").json()
        assert (mine["agent"], [e["entry_id"] for e in mine["entries"]]) == ("alice", [alices])
        theirs = bob.get("/v1/attestations/refund-1").json()
        assert (theirs["agent"], [e["entry_id"] for e in theirs["entries"]]) == ("bob", [bobs])
        assert _created(_attest(alice, "alice-secret", [alices]))["agent"] == "alice"
        hidden = bob.get("/v1/attestations/alice-secret")
        unknown = bob.get("/v1/attestations/never-made")
        assert hidden.status_code == unknown.status_code == 404
        assert hidden.json() == unknown.json()
        assert bob.get("/v1/attestations/refund-1", params={"agent": "alice"}).status_code == 403
        # an operator names the agent when several hold the id
        ambiguous = ops.get("/v1/attestations/refund-1")
        assert ambiguous.status_code == 422
        assert "name the agent" in ambiguous.json()["error"]["message"]
        chosen = ops.get("/v1/attestations/refund-1", params={"agent": "bob"}).json()
        assert chosen["agent"] == "bob"
        assert ops.get("/v1/attestations/alice-secret").json()["agent"] == "alice"
        # entries of two agents: an operator's decision, under no agent
        both = _created(_attest(ops, "refund-1", [alices, bobs]))
        assert both["agent"] is None
        assert alice.get("/v1/attestations/refund-1").json()["agent"] == "alice"
    with open_store(target) as store:
        assert store.verify() == []


def test_verify_names_an_attestation_moved_to_another_agent(store: MemoryStore) -> None:
    mine = store.add("alice", "Invoice INV-1 for $5.", now=NOW)
    store.attest("d1", [mine], now=NOW)
    assert store.verify() == []
    if store.dialect.name == "sqlite":
        for table in ("attestations", "attestation_entries"):
            raw(store, f"DROP TRIGGER {table}_no_update")
    else:
        for table in ("attestations", "attestation_entries"):
            raw(store, f"ALTER TABLE {table} DISABLE TRIGGER {table}_no_update")
        fkey = "attestation_entries_decision_id_agent_id_fkey"
        raw(store, f"ALTER TABLE attestation_entries DROP CONSTRAINT {fkey}")
    raw(store, "UPDATE attestations SET agent_id = 'bob'")
    raw(store, "UPDATE attestation_entries SET agent_id = 'bob'")
    assert "attestation d1 (agent bob): it is not filed under its entries' agent (edited)" in (
        store.verify()
    )
