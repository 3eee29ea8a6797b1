"""What the API cannot read is a 4xx with the error body, never a 5xx: JSON bodies nested
thousands deep or with 100,000-digit integers on every JSON route, schema YAML nested
thousands deep, and integer parameters beyond what a store holds (every one is bounded)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from factdiff.service import create_app
from factdiff.store import open_store
from tests.integration.service_helpers import Keys, bearer, make_keys, running_api

DEEP = "[" * 5000 + "]" * 5000
HUGE = "9" * 100_000


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Keys]]:
    target = str(tmp_path_factory.mktemp("bounds") / "memory.db")
    open_store(target).close()
    keys = make_keys(target)
    with running_api(target) as base:
        yield base, keys


def openapi(tmp_path: Path) -> dict[str, Any]:
    target = str(tmp_path / "memory.db")
    open_store(target).close()
    document: dict[str, Any] = create_app(target).openapi()
    return document


def integers(node: Any, document: dict[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """Every integer schema under ``node`` (references followed), with where it is."""
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            yield from integers(document["components"]["schemas"][name], document, name)
            return
        if node.get("type") == "integer":
            yield path, node
        for key, value in node.items():
            yield from integers(value, document, f"{path}.{key}")
    elif isinstance(node, list):
        for item in node:
            yield from integers(item, document, path)


def test_every_integer_a_caller_sends_has_a_maximum(tmp_path: Path) -> None:
    document = openapi(tmp_path)
    unbounded = []
    for route, operations in document["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {route}"
            sent = [*operation.get("parameters", []), operation.get("requestBody", {})]
            for path, schema in integers(sent, document, where):
                if "maximum" not in schema:
                    unbounded.append(path)
    assert unbounded == []


def json_routes(tmp_path: Path) -> list[tuple[str, str]]:
    document = openapi(tmp_path)
    return [
        (method.upper(), re.sub(r"\{[^}]+\}", "x", route))
        for route, operations in document["paths"].items()
        for method, operation in operations.items()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    ]


@pytest.mark.parametrize(
    "body",
    [
        '{"text": "a note", "metadata": {"deep": ' + DEEP + "}}",
        '{"text": "a note", "metadata": {"n": ' + HUGE + "}}",
        DEEP,
        "9" * 4301,
    ],
    ids=["deep-member", "huge-member", "deep", "4301-digits"],
)
def test_no_json_route_fails_on_what_it_cannot_parse(
    api: tuple[str, Keys], tmp_path: Path, body: str
) -> None:
    base, keys = api
    routes = json_routes(tmp_path)
    assert ("POST", "/v1/entries") in routes
    assert ("POST", "/v1/schemas") in routes
    with httpx.Client(base_url=base, timeout=60, headers=bearer(keys.operator)) as http:
        for method, route in routes:
            answer = http.request(
                method, route, content=body, headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == 422, (method, route, answer.status_code, answer.text)
            assert answer.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    "yaml",
    [
        "schema: deep\nversion: 1\nfields: " + DEEP + "\n",
        "schema: deep\nversion: 1\nfields: {a: " + "{a: " * 5000 + "}" * 5001 + "\n",
        "schema: big\nversion: 99999999999999999999\nfields: {}\n",
    ],
    ids=["deep-flow-sequence", "deep-flow-mapping", "huge-version"],
)
def test_registering_schema_yaml_it_cannot_read_is_a_422(api: tuple[str, Keys], yaml: str) -> None:
    base, keys = api
    with httpx.Client(base_url=base, timeout=60, headers=bearer(keys.operator)) as http:
        answer = http.post("/v1/schemas", json={"yaml": yaml})
    assert answer.status_code == 422, answer.text
    message = answer.json()["error"]["message"]
    assert "nesting deeper than 32 levels" in message or "less than or equal to" in message


@pytest.mark.parametrize(
    ("method", "route", "params", "body"),
    [
        ("GET", "/v1/events/stream", {"after": "99999999999999999999"}, None),
        ("GET", "/v1/entries", {"limit": "99999999999999999999"}, None),
        ("GET", "/v1/search", {"q": "x", "k": "99999999999999999999"}, None),
        ("POST", "/v1/schemas/sales/reevaluate", {}, {"to_version": 2**31}),
    ],
    ids=["stream-after", "entries-limit", "search-k", "reevaluate-to-version"],
)
def test_integers_beyond_their_bound_are_422(
    api: tuple[str, Keys], method: str, route: str, params: dict[str, str], body: object
) -> None:
    base, keys = api
    with httpx.Client(base_url=base, timeout=60, headers=bearer(keys.operator)) as http:
        answer = http.request(method, route, params=params, json=body)
    assert answer.status_code == 422, answer.text
    assert "less than or equal to" in answer.json()["error"]["message"]
