"""Property fuzz of every JSON route's body over real HTTP: no 5xx and no traceback, ever.

The routes come from the service's own OpenAPI document, so a new route is fuzzed without
being named here. Each body is built from the route's documented keys (every key kept, left
out or given a hostile value: blank or huge text, NUL and lone surrogates, huge or negative
integers, deep nesting, times beyond any calendar, path-like schema names...), or is hostile
JSON as a whole, or bytes that are not JSON at all. A caller's mistake must be a 4xx with the
service's error body; nothing may be a 5xx, and the server may log no traceback.
"""

from __future__ import annotations

import json
import logging
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factdiff.store import open_store
from tests.conftest import worked
from tests.integration.service_helpers import Keys, client, make_keys, running_api


@dataclass(frozen=True)
class Route:
    """One operation that takes a JSON body: its method, path template and body schema."""

    method: str
    path: str
    body: dict[str, Any]
    body_required: bool


@dataclass(frozen=True)
class Api:
    """A running API on a store with one entry of alice's, and the keys to call it with."""

    base: str
    target: str
    keys: Keys
    entry_id: str
    routes: tuple[Route, ...] = field(repr=False)
    components: dict[str, Any] = field(repr=False)


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        resolved: dict[str, Any] = components[ref.rsplit("/", 1)[-1]]
        return resolved
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, ()):
            if option.get("type") != "null":
                return _resolve(option, components)
    return schema


def _json_routes(document: dict[str, Any]) -> tuple[Route, ...]:
    routes = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody")
            if body and "application/json" in body["content"]:
                schema = body["content"]["application/json"]["schema"]
                routes.append(Route(method.upper(), path, schema, bool(body.get("required"))))
    return tuple(routes)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    target = str(Path(tmp_path_factory.mktemp("fuzz")) / "memory.db")
    keys = make_keys(target)
    with open_store(target) as store:
        entry_id = store.add("alice", worked("source"), now=datetime.now(UTC), tags=("call",))
    with running_api(target, max_body_bytes=256 * 1024) as base:
        document = httpx.get(f"{base}/openapi.json").json()
        yield Api(
            base, target, keys, entry_id, _json_routes(document), document["components"]["schemas"]
        )


def _hostile_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(
            [
                "",
                "   \n\t ",
                "\x00",
                "\ud800",
                "../..",
                "/etc/passwd",
                "customer_service@99999999999999999999",
                "0001-01-01T00:00+14:00",
                "9999-12-31T23:59-14:00",
                "99999999999999d",
                "x" * 70_000,
                "<script>alert(1)</script>",
                "[red]markup[/red]\x1b[2J",
            ]
        ),
        st.text(st.characters(exclude_categories=[]), max_size=40),  # lone surrogates too
        st.text(st.characters(exclude_categories=[]), max_size=3).map(lambda t: f"a{t}\ud800"),
    )


def _hostile_json() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([2**63, -(2**63) - 1, 10**30, -1, 0]),
        st.floats(allow_nan=False, allow_infinity=False),
        _hostile_text(),
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=6,
    )


def _value_for(schema: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A plausible value of ``schema`` (often), or a hostile one."""
    schema = _resolve(schema, components)
    kind = schema.get("type")
    plausible: st.SearchStrategy[Any]
    if "enum" in schema:
        plausible = st.sampled_from(schema["enum"])
    elif kind == "string":
        plausible = st.text(string.ascii_letters + string.digits + "-_:", min_size=1, max_size=30)
    elif kind == "integer":
        plausible = st.integers(schema.get("minimum", -5), schema.get("maximum", 50))
    elif kind == "boolean":
        plausible = st.booleans()
    elif kind == "array":
        plausible = st.lists(_value_for(schema.get("items", {}), components), max_size=3)
    elif kind == "object" and "properties" in schema:
        plausible = _object_for(schema, components)
    else:
        plausible = st.none()
    return st.one_of(plausible, plausible, _hostile_json())


def _object_for(schema: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    fixed = {
        key: _value_for(value, components) for key, value in properties.items() if key in required
    }
    optional = {
        key: _value_for(value, components)
        for key, value in properties.items()
        if key not in required
    }
    extra = st.dictionaries(
        st.sampled_from(["nope", "__proto__", "x" * 300]), _hostile_json(), max_size=1
    )
    return st.builds(
        lambda a, b, c: {**a, **b, **c},
        st.fixed_dictionaries(fixed, optional=optional),
        st.one_of(st.just({}), st.fixed_dictionaries({}, optional=fixed)),
        st.one_of(st.just({}), extra),
    )


def _body(route: Route, components: dict[str, Any]) -> st.SearchStrategy[bytes | None]:
    schema = _resolve(route.body, components)
    as_json = st.one_of(_object_for(schema, components), _hostile_json()).map(
        lambda value: json.dumps(value).encode()
    )
    deep = st.integers(1_000, 50_000).map(lambda n: b"[" * n + b"]" * n)
    deep_key = st.integers(1_000, 50_000).map(lambda n: b'{"text": ' + b"[" * n + b"]" * n + b"}")
    huge_int = st.integers(5_000, 100_000).map(lambda n: b'{"text": "a", "k": ' + b"9" * n + b"}")
    raw = st.one_of(
        deep,
        deep_key,
        huge_int,
        st.binary(max_size=60),
        st.sampled_from([b"", b"{", b'{"text": "a"', b"\xff\xfe{}", b"null", b"NaN"]),
    )
    return st.one_of(as_json, as_json, as_json, raw, st.none())


@st.composite
def _calls(draw: st.DrawFn, api: Api) -> tuple[Route, str, bytes | None, str]:
    route = draw(st.sampled_from(api.routes))
    ids = st.one_of(
        st.just(api.entry_id), _hostile_text().filter(lambda s: "/" not in s and 0 < len(s) < 200)
    )
    path = route.path
    for name in ("entry_id", "name"):
        if "{" + name + "}" in path:
            value = draw(st.just("customer_service") if name == "name" else ids)
            path = path.replace("{" + name + "}", quote(value.encode("utf-8", "surrogatepass")))
    key = draw(st.sampled_from([api.keys.operator, api.keys.alice, api.keys.bob]))
    return route, path, draw(_body(route, api.components)), key


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_no_json_body_makes_a_5xx_or_a_traceback(
    api: Api, data: st.DataObject, caplog: pytest.LogCaptureFixture
) -> None:
    route, path, body, key = data.draw(_calls(api))
    headers = {"Content-Type": "application/json"} if body is not None else {}
    caplog.clear()
    server_logs = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error")]
    for logger in server_logs:
        logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.WARNING), client(api.base, key) as http:
            answer = http.request(route.method, path, content=body, headers=headers)
    finally:
        for logger in server_logs:
            logger.removeHandler(caplog.handler)
    shown = f"{route.method} {path} {body!r:.300} -> {answer.status_code} {answer.text:.300}"
    assert answer.status_code < 500, shown
    if answer.status_code >= 400:
        assert set(answer.json()) >= {"error"}, shown
    tracebacks = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not tracebacks, f"{shown}: the server logged {tracebacks[0].getMessage()!r}"


def test_a_body_of_optional_keys_may_be_left_out(api: Api) -> None:
    """Where every key of a route's body is optional, so is the body itself."""
    optional = [
        route
        for route in api.routes
        if not _resolve(route.body, api.components).get("required")
        and "properties" in _resolve(route.body, api.components)
        and route.path != "/v1/schemas"
    ]
    assert {route.path for route in optional} >= {
        "/v1/demotions",
        "/v1/entries/{entry_id}/forget",
        "/v1/schemas/{name}/reevaluate",
        "/v1/reviews/resolve",
    }
    with client(api.base, api.keys.operator) as http:
        for route in optional:
            path = route.path.replace("{entry_id}", "01ZZZZZZZZZZZZZZZZZZZZZZZZ")
            path = path.replace("{name}", "customer_service")
            answer = http.request(route.method, path)
            assert answer.status_code != 422, f"{route.path}: {answer.text}"


SWEPT_VALUES: tuple[Any, ...] = (
    "",
    " \n\t",
    "\x00",
    "a\ud800",
    "../..",
    "0001-01-01T00:00+14:00",
    "99999999999999d",
    "x" * 70_000,
    2**64,
    -1,
    1.5,
    None,
    True,
    [],
    {},
    ["\ud800"],
    {"\ud800": "\ud800"},
)
"""Each value is put, alone, in each key of a body that is otherwise well formed."""


def _good_values(api: Api) -> dict[str, Any]:
    return {
        "ids": [api.entry_id],
        "text": worked("source"),
        "source": worked("source"),
        "summary": worked("faithful"),
        "decision": "d-1",
        "schema": "customer_service",
        "agent": "alice",
        "reason": "checked by hand",
        "note": "checked",
        "rung": 0,
        "older_than": "14d",
    }


def _baseline(schema: dict[str, Any], api: Api) -> Any:
    """A well-formed value of ``schema``: known-good values by key, else the type's simplest."""
    schema = _resolve(schema, api.components)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        good = _good_values(api)
        return {
            key: good[key] if key in good else _baseline(value, api)
            for key, value in schema["properties"].items()
            if key in schema.get("required", ()) or key in good
        }
    if kind == "array":
        return [_baseline(schema.get("items", {}), api)]
    return {"string": "a", "integer": 1, "number": 1, "boolean": False}.get(str(kind))


def _key_paths(body: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every key of ``body``, and the keys of the objects in its lists."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield (*prefix, key)
            yield from _key_paths(value, (*prefix, key))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            if isinstance(value, dict):
                yield from _key_paths(value, (*prefix, index))


def _with_value(body: Any, path: tuple[str | int, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(body))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return copy


def _refused_cleanly(http: httpx.Client, method: str, url: str, body: str) -> str | None:
    """What went wrong with one request (no answer, or a 5xx), or None."""
    try:
        answer = http.request(
            method, url, content=body.encode(), headers={"Content-Type": "application/json"}
        )
    except httpx.HTTPError as exc:
        return f"no answer ({exc})"
    return f"{answer.status_code} {answer.text:.200}" if answer.status_code >= 500 else None


def test_each_key_of_each_body_refuses_hostile_values_cleanly(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    """A systematic sweep beside the random fuzz: every documented key of every JSON route,
    one hostile value at a time, the rest of the body well formed."""
    with open_store(api.target) as store:
        spare = [store.add("alice", f"note {i}: $5", now=datetime.now(UTC)) for i in range(40)]
    server_logs = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error")]
    for logger in server_logs:
        logger.addHandler(caplog.handler)
    failures = []
    try:
        with caplog.at_level(logging.WARNING), client(api.base, api.keys.operator) as http:
            for route in api.routes:
                body = _baseline(route.body, api)
                for path in _key_paths(body):
                    for value in SWEPT_VALUES:
                        entry = spare.pop() if "forget" in route.path and spare else api.entry_id
                        url = route.path.replace("{entry_id}", entry)
                        url = url.replace("{name}", "customer_service")
                        sent = json.dumps(_with_value(body, path, value))
                        problem = _refused_cleanly(http, route.method, url, sent)
                        if problem:
                            failures.append(f"{route.path} {path}={value!r:.40}: {problem}")
    finally:
        for logger in server_logs:
            logger.removeHandler(caplog.handler)
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert not failures, "\n".join(failures[:40])
    assert not tracebacks, tracebacks[:3]
