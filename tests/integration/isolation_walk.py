"""Walk every operation of the OpenAPI document with one agent's key against another
agent's data, and report every answer that lets that data through.

Each operation is called with the other agent's ids in its path, minimal valid parameters
and bodies made from the document's own schemas (and once more naming the other agent where
it takes an ``agent`` parameter). An answer passes when it is an error (401/403/404/409/422)
or a success whose body holds none of the other agent's markers (its entry ids, its agent
name, a word only its text holds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

SAFE_ERRORS = frozenset({403, 404, 409, 422})
STREAM_SECONDS = 1.0


@dataclass(frozen=True)
class Victim:
    """The other agent's data that must not leak."""

    agent: str
    entry_ids: tuple[str, ...]
    decision: str
    secret_word: str
    query_word: str


@dataclass(frozen=True)
class Leak:
    """One answer that let the other agent's data through."""

    method: str
    path: str
    status: int
    why: str


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = document["components"]["schemas"][name]
    if "anyOf" in schema:
        options = [o for o in schema["anyOf"] if o.get("type") != "null"]
        return _resolve(document, options[0]) if options else {"type": "null"}
    return schema


def _value(document: dict[str, Any], name: str, schema: dict[str, Any], victim: Victim) -> Any:
    """A minimal valid value for a parameter or property, aimed at the victim's data."""
    schema = _resolve(document, schema)
    by_name: dict[str, Any] = {
        "ids": list(victim.entry_ids),
        "decision": victim.decision,
        "q": victim.query_word,
        "text": f"a note about {victim.query_word}",
        "source": f"invoice {victim.query_word}",
        "summary": f"invoice {victim.query_word}",
        "builtin": "generic",
    }
    if name in by_name:
        return by_name[name]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        props = schema.get("properties", {})
        return {key: _value(document, key, props[key], victim) for key in required}
    if kind == "array":
        return [_value(document, name, schema.get("items", {}), victim)]
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "boolean":
        return False
    return "x"


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every ``(method, path, operation)`` of the document."""
    found = []
    for path, item in sorted(document["paths"].items()):
        for method, operation in sorted(item.items()):
            if method in {"get", "post", "put", "patch", "delete"}:
                found.append((method.upper(), path, operation))
    return found


def _calls(
    document: dict[str, Any], path: str, operation: dict[str, Any], victim: Victim
) -> list[tuple[str, dict[str, Any], Any]]:
    """``(url, query, body)`` for each call to make for one operation."""
    params = operation.get("parameters", [])
    path_names = [p["name"] for p in params if p["in"] == "path"]
    query = {
        p["name"]: _value(document, p["name"], p.get("schema", {}), victim)
        for p in params
        if p["in"] == "query" and p.get("required")
    }
    if "after" in {p["name"] for p in params}:
        query["after"] = 0
    body = None
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content is not None:
        body = _value(document, "body", content["schema"], victim)
    targets: list[dict[str, str]] = []
    if "entry_id" in path_names:
        targets = [{"entry_id": entry_id} for entry_id in victim.entry_ids]
    elif "decision" in path_names:
        targets = [{"decision": victim.decision}]
    elif "name" in path_names:
        targets = [{"name": "generic"}]
    else:
        targets = [{}]
    calls = []
    takes_agent = any(p["name"] == "agent" and p["in"] == "query" for p in params)
    body_agent = isinstance(body, dict) and "agent" in _body_properties(document, operation)
    for values in targets:
        url = path.format(**values)
        calls.append((url, query, body))
        if takes_agent:
            calls.append((url, {**query, "agent": victim.agent}, body))
        if body_agent:
            assert isinstance(body, dict)
            calls.append((url, query, {**body, "agent": victim.agent}))
    return calls


def _body_properties(document: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    content = operation["requestBody"]["content"]["application/json"]
    props: dict[str, Any] = _resolve(document, content["schema"]).get("properties", {})
    return props


def _leaks(text: str, victim: Victim) -> str | None:
    for entry_id in victim.entry_ids:
        if entry_id in text:
            return f"holds the entry id {entry_id}"
    if victim.secret_word in text:
        return f"holds {victim.secret_word!r} from the other agent's text"
    if json.dumps(victim.agent) in text:
        return f"names the agent {victim.agent!r}"
    return None


def _send(
    http: httpx.Client, method: str, url: str, query: dict[str, Any], body: Any
) -> tuple[int, str]:
    if url.endswith("/stream"):
        received: list[str] = []
        try:
            with http.stream(
                method, url, params=query, timeout=httpx.Timeout(5, read=STREAM_SECONDS)
            ) as response:
                for line in response.iter_lines():
                    received.append(line)
        except httpx.ReadTimeout:
            pass
        return response.status_code, "\n".join(received)
    response = http.request(method, url, params=query, json=body)
    return response.status_code, response.text


def walk(http: httpx.Client, document: dict[str, Any], victim: Victim) -> tuple[int, list[Leak]]:
    """Call every operation as ``http``'s key; returns how many calls were made and leaks."""
    leaks: list[Leak] = []
    made = 0
    for method, path, operation in operations(document):
        for url, query, body in _calls(document, path, operation, victim):
            status, text = _send(http, method, url, query, body)
            made += 1
            if status >= 500 or status == 401:
                leaks.append(Leak(method, url, status, "unexpected status"))
            elif status not in SAFE_ERRORS:
                why = _leaks(text, victim)
                if why is not None:
                    leaks.append(Leak(method, url, status, why))
    return made, leaks
