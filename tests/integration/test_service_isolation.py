"""An agent key never reaches another agent's entries, on any route of the OpenAPI
document, on SQLite and PostgreSQL; a route added without a scope check fails the walk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.service.auth import Caller, Store
from factdiff.store import Tier, open_store
from tests.integration.isolation_walk import Victim, operations, walk
from tests.integration.service_helpers import client, make_keys, running_api

BOB_TEXT = (
    "Bob called about invoice INV-7731 for $4,410 at 12 Larkspur Lane. "
    "He agreed to pay by 2026-04-02."
)


def _victim(target: str) -> Victim:
    """Bob's data: a warm entry (demoted), a hot one, and an attested decision."""
    now = datetime.now(UTC)
    old = now - timedelta(days=30)
    with open_store(target) as store:
        warm = store.add("bob", BOB_TEXT, now=old, last_used_at=old)
        Demoter(store, DemotionSettings()).run(now, agent="bob")
        assert store.get(warm).tier is Tier.WARM
        hot = store.add("bob", BOB_TEXT + " Second call.", now=now)
        store.attest("decision-bob", [warm, hot], now=now)
        store.add("alice", "Alice's own note about invoice INV-7731.", now=now)
    return Victim("bob", (warm, hot), "decision-bob", "Larkspur", "INV-7731")


def _snapshot(target: str, ids: tuple[str, ...]) -> list[tuple[str, str, str]]:
    with open_store(target) as store:
        return [
            (store.get(i).tier.value, store.get(i).status.value, store.get(i).content_hash)
            for i in ids
        ]


def test_every_route_hides_other_agents_data(target: str) -> None:
    keys = make_keys(target)
    victim = _victim(target)
    before = _snapshot(target, victim.entry_ids)
    with running_api(target) as base, client(base, keys.alice) as http:
        document = http.get("/openapi.json").json()
        made, leaks = walk(http, document, victim)
        with client(base, keys.operator) as ops:  # the operator does see bob's entry
            shown = ops.get(f"/v1/entries/{victim.entry_ids[0]}")
            assert shown.json()["entry"]["agent_id"] == "bob"
    assert leaks == []
    assert made > len(operations(document))
    assert _snapshot(target, victim.entry_ids) == before


def test_a_route_without_a_scope_check_fails_the_walk(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import factdiff.service.app as service_app

    build = service_app.create_app

    def with_leaky_route(db: str, **options: object) -> FastAPI:
        app = build(db, **options)  # type: ignore[arg-type]

        @app.get("/v1/entries/{entry_id}/raw")
        def raw(entry_id: str, caller: Caller, store: Store) -> dict[str, str]:
            entry = store.get(entry_id)  # no owned_entry(): the bug this test must catch
            return {"id": entry.id, "agent": entry.agent_id}

        return app

    monkeypatch.setattr(service_app, "create_app", with_leaky_route)
    keys = make_keys(target)
    victim = _victim(target)
    with running_api(target) as base, httpx.Client(base_url=base) as anonymous:
        document = anonymous.get("/openapi.json").json()
        with client(base, keys.alice) as http:
            _, leaks = walk(http, document, victim)
    assert {leak.path for leak in leaks} >= {f"/v1/entries/{i}/raw" for i in victim.entry_ids}
