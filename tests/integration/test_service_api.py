"""The HTTP API over real HTTP, on SQLite and PostgreSQL: the issue's contract."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from factdiff.present.documents import show_document
from factdiff.schema.builtin import builtin_schema
from factdiff.store import open_store
from factdiff.verify.check import check
from tests.conftest import worked
from tests.integration.service_helpers import Keys, bearer, client, make_keys, running_api


@pytest.fixture
def api(target: str) -> Iterator[tuple[str, Keys, str]]:
    """``(base URL, keys, store target)`` of a running API on a fresh store."""
    keys = make_keys(target)
    with running_api(target, max_body_bytes=64 * 1024) as base:
        yield base, keys, target


def _error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()["error"]
    assert body["code"]
    assert body["message"]
    assert "\n" not in body["message"]
    return body


def test_add_get_search_check_with_an_agent_key(api: tuple[str, Keys, str]) -> None:
    base, keys, target = api
    with client(base, keys.alice) as http:
        added = http.post(
            "/v1/entries",
            json={
                "text": worked("source"),
                "occurred_at": "2026-03-14T19:32:00Z",
                "tags": ["call"],
            },
        )
        assert added.status_code == 201
        entry_id = added.json()["id"]
        assert set(added.json()) == {"id"}
        shown = http.get(f"/v1/entries/{entry_id}").json()
        with open_store(target) as store:
            assert shown == json.loads(json.dumps(show_document(store, entry_id)))
        assert shown["entry"]["agent_id"] == "alice"
        assert shown["entry"]["tags"] == ["call"]
        found = http.get("/v1/search", params={"q": "14,250 USD", "k": 3}).json()
        assert found["query"] == "14,250 USD"
        assert [hit["entry_id"] for hit in found["hits"]] == [entry_id]
        checked = http.post(
            "/v1/check",
            json={
                "source": worked("source"),
                "summary": worked("fluent"),
                "schema": "customer_service",
            },
        ).json()
        expected = check(worked("source"), worked("fluent"), builtin_schema("customer_service"))
        assert checked == json.loads(json.dumps(expected.to_json()))
        assert checked["outcome"] == "failed"
        listed = http.get("/v1/entries", params={"tag": "call"}).json()
        assert [e["id"] for e in listed["entries"]] == [entry_id]
        assert http.get("/v1/entries", params={"tag": "other"}).json()["total"] == 0


def test_batch_paging_touch_and_attempts(api: tuple[str, Keys, str]) -> None:
    base, keys, _ = api
    with client(base, keys.bob) as http:
        texts = [{"text": f"note {n}: order ORD-{1000 + n} shipped"} for n in range(5)]
        ids = http.post("/v1/entries/batch", json={"entries": texts}).json()["ids"]
        assert len(ids) == 5
        first = http.get("/v1/entries", params={"limit": 2}).json()
        assert [e["id"] for e in first["entries"]] == ids[:2]
        assert first["total"] == 5
        second = http.get("/v1/entries", params={"limit": 2, "cursor": first["next_cursor"]})
        assert [e["id"] for e in second.json()["entries"]] == ids[2:4]
        touched = http.post(f"/v1/entries/{ids[0]}/touch").json()
        assert touched["id"] == ids[0]
        assert http.get(f"/v1/entries/{ids[0]}/attempts").json() == {
            "entry_id": ids[0],
            "attempts": [],
        }
        _error(http.post(f"/v1/entries/{ids[0]}/restore"), 409)


def test_keys_errors_and_limits(api: tuple[str, Keys, str]) -> None:
    base, keys, target = api
    with client(base) as anonymous:
        _error(anonymous.get("/v1/stats"), 401)
        _error(anonymous.get("/v1/stats", headers=bearer("fd_not-a-key")), 401)
        assert anonymous.get("/healthz").json() == {"status": "ok"}
        ready = anonymous.get("/readyz").json()
        assert ready["status"] == "ok"
        assert ready["schema_version"] == ready["expected_version"]
    with client(base, keys.alice) as http:
        assert _error(http.get("/v1/stats"), 403)["code"] == "forbidden"
        _error(http.get("/v1/reviews"), 403)
        _error(http.post("/v1/entries", json={"text": "x", "agent": "bob"}), 403)
        _error(http.post("/v1/entries", json={"text": 5}), 422)
        _error(http.post("/v1/entries", json={"text": "x", "unknown": 1}), 422)
        _error(http.get("/v1/search", params={"q": "x", "k": "many"}), 422)
        assert _error(http.post("/v1/entries", json={"text": "x" * 70_000}), 413)["code"] == (
            "too_large"
        )
        _error(http.get("/v1/entries/01ZZZZZZZZZZZZZZZZZZZZZZZZ"), 404)
    with client(base, keys.operator) as ops:
        _error(ops.post("/v1/entries", json={"text": "no agent named"}), 422)
        assert ops.post("/v1/entries", json={"text": "x", "agent": "carol"}).status_code == 201
        assert ops.get("/v1/stats").json()["tiers"]["hot"] == 1
    with open_store(target) as store:
        assert store.revoke_api_key("alice-key", store.db_now())
    with client(base, keys.alice) as http:
        assert "revoked" in _error(http.get("/v1/entries"), 401)["message"]


def test_offline_docs_and_openapi(api: tuple[str, Keys, str]) -> None:
    base, _, _ = api
    with client(base) as http:
        page = http.get("/docs").text
        assert "/static/docs/swagger-ui-bundle.js" in page
        assert "cdn" not in page.lower()
        assert "/static/docs/redoc.standalone.js" in http.get("/redoc").text
        assert http.get("/static/docs/swagger-ui-bundle.js").status_code == 200
        paths = http.get("/openapi.json").json()["paths"]
        assert {"/v1/entries", "/v1/entries/{entry_id}", "/v1/search", "/v1/check"} <= set(paths)
        assert {"/v1/reviews", "/v1/stats"} <= set(paths)


def test_events_listing_and_live_stream(api: tuple[str, Keys, str]) -> None:
    base, keys, _ = api
    with client(base, keys.operator) as ops:
        registered = ops.post("/v1/schemas", json={"builtin": "customer_service"})
        assert registered.status_code == 201
        assert registered.json()["new"] is True
        listed = ops.get("/v1/events", params={"type": "schema_registered"}).json()
        assert [e["payload"]["name"] for e in listed["events"]] == ["customer_service"]
        with ops.stream("GET", "/v1/events/stream", params={"after": 0, "limit": 1}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = [line for line in stream.iter_lines() if line.startswith("data:")]
        assert json.loads(lines[0][5:])["type"] == "schema_registered"
        schemas = ops.get("/v1/schemas").json()["schemas"]
        assert [s["name"] for s in schemas] == ["customer_service"]
        version = schemas[0]["version"]
        shown = ops.get("/v1/schemas/customer_service").json()
        assert shown["version"] == version
        assert "fields" in shown["definition"]
        same = ops.get(
            "/v1/schemas/customer_service/diff", params={"from": version, "to": version}
        ).json()
        assert same["added"] == same["removed"] == same["changed"] == []


def test_keys_cli_prints_the_contract_document(tmp_path: Any) -> None:
    db = str(tmp_path / "keys.db")
    run = [sys.executable, "-m", "factdiff.cli"]
    made = subprocess.run(
        [*run, "keys", "create", "--agent", "alice", "--name", "a1", "--json", "--db", db],
        capture_output=True,
        text=True,
        check=True,
    )
    document = json.loads(made.stdout)
    assert set(document) == {"key", "name", "scope"}
    assert document["name"] == "a1"
    assert document["scope"] == "agent"
    listed = subprocess.run(
        [*run, "keys", "list", "--json", "--db", db], capture_output=True, text=True, check=True
    )
    assert document["key"] not in listed.stdout
    subprocess.run([*run, "keys", "revoke", "a1", "--db", db], check=True, capture_output=True)
    with open_store(db) as store:
        key = store.api_key_for(document["key"])
        assert key is not None
        assert key.revoked_at is not None
    bad = subprocess.run(
        [*run, "keys", "create", "--db", db], check=False, capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
