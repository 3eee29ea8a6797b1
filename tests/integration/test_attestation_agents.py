"""Decision ids are per agent, over HTTP with two agent keys on SQLite and PostgreSQL: bob
learns nothing of alice's ids and cannot take them; stores of schema version 15 give their
attestations the agent of their entries; ``verify`` names an attestation moved to another
agent behind the store's back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from factdiff.store import MemoryStore, open_store
from factdiff.store.dialect import load_dialect
from tests.integration.conftest import dialect_at, raw
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


def _v15_attestations(store: MemoryStore, rows: list[tuple[str, list[str]]]) -> None:
    """Attestations as factdiff wrote them at schema version 15 (no agent column)."""
    for decision, entry_ids in rows:
        raw(
            store,
            "INSERT INTO attestations (decision_id, rendered_hash, digest, attested_at)"
            " VALUES (?, 'sha256:x', 'sha256:y', 1)",
            decision,
        )
        for position, entry_id in enumerate(entry_ids, start=1):
            raw(
                store,
                "INSERT INTO attestation_entries (decision_id, position, entry_id, tier,"
                " schema_name, schema_version, source_hash, rendered_hash)"
                " VALUES (?, ?, ?, 'hot', NULL, NULL, 'sha256:s', 'sha256:r')",
                decision,
                position,
                entry_id,
            )


def test_migration_files_old_attestations_under_their_entries_agent(target: str) -> None:
    kind = "postgres" if target.startswith("postgresql") else "sqlite"
    with open_store(target, dialect=dialect_at(kind, 15)) as old:
        a1 = old.add("alice", "Invoice INV-1 for $5.", now=NOW)
        a2 = old.add("alice", "Invoice INV-2 for $6.", now=NOW)
        b1 = old.add("bob", "Invoice INV-3 for $7.", now=NOW)
        _v15_attestations(old, [("d-alice", [a1, a2]), ("d-mixed", [a1, b1]), ("d-bob", [b1])])
        assert old.schema_version() == 15
    with open_store(target, check_version=False) as store:
        assert store.migrate() == load_dialect(kind).version - 15
        assert store.schema_version() == load_dialect(kind).version
        filed = raw(store, "SELECT decision_id, agent_id FROM attestations ORDER BY decision_id")
        assert filed == [("d-alice", "alice"), ("d-bob", "bob"), ("d-mixed", "")]
        entries = raw(
            store,
            "SELECT decision_id, agent_id, position FROM attestation_entries"
            " ORDER BY decision_id, position",
        )
        assert entries == [
            ("d-alice", "alice", 1),
            ("d-alice", "alice", 2),
            ("d-bob", "bob", 1),
            ("d-mixed", "", 1),
            ("d-mixed", "", 2),
        ]
        assert store.check_attestation("d-alice", "alice").attestation.agent == "alice"
        assert store.check_attestation("d-mixed").attestation.agent is None
        # the migrated tables keep their keys and stay append-only
        store.attest("d-alice", [b1], now=NOW)  # bob's own d-alice
        assert store.check_attestation("d-alice", "bob").attestation.agent == "bob"


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
