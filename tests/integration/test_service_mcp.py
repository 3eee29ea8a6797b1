"""An MCP client session with the SDK's own client: over stdio (``factdiff mcp``) and over
streamable HTTP under ``factdiff serve``: remember three memories, recall one by an amount
written in another format, get its facts; a caller's mistake comes back as the tool's error
text (no agent, unknown memory, blank entry, malformed schema name), never as a traceback."""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from factdiff.schema.names import BadSchemaName, check_reference
from factdiff.store import BlankEntry, open_store
from tests.integration.service_helpers import bearer, make_keys, running_api
from tests.integration.service_helpers import client as client_for

NOTES = [
    ("Call with Acme: invoice INV-9182 total $14,250, payment due 2026-03-25.", ["call"]),
    ("Team lunch moved to Friday; bring the slides for the Q3 review.", ["team"]),
    ("Order ORD-5521 of 40 chairs shipped to the Denver office on 2026-02-10.", ["order"]),
]


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    if result.structured_content is not None:
        content: dict[str, Any] = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    parsed: dict[str, Any] = json.loads(result.content[0].text)
    return parsed


async def _session(client: Client) -> None:
    tools = {tool.name for tool in (await client.list_tools()).tools}
    assert {"remember", "recall", "get_memory", "check_summary"} <= tools
    ids = []
    for text, tags in NOTES:
        made = _data(
            await client.call_tool(
                "remember", {"text": text, "occurred_at": "2026-03-14T10:00:00Z", "tags": tags}
            )
        )
        ids.append(made["id"])
    found = _data(await client.call_tool("recall", {"query": "14250 USD", "k": 2}))
    assert found["hits"][0]["entry_id"] == ids[0]
    memory = _data(await client.call_tool("get_memory", {"id": ids[0]}))
    assert memory["entry"]["id"] == ids[0]
    assert (memory["verified_share"], memory["unverified"]) == (None, [])  # hot: no check yet
    assert "14,250" in json.dumps(memory["facts"]) or "14250" in json.dumps(memory["facts"])
    checked = _data(
        await client.call_tool(
            "check_summary",
            {"source": NOTES[0][0], "summary": "Call with Acme about an invoice."},
        )
    )
    assert checked["outcome"] == "failed"
    missing = await client.call_tool("get_memory", {"id": "01ZZZZZZZZZZZZZZZZZZZZZZZZ"})
    assert missing.is_error


def test_mcp_over_stdio(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "factdiff.cli", "mcp", "--agent", "support-bot", "--db", db],
    )

    async def main() -> None:
        async with Client(params) as client:
            await _session(client)

    anyio.run(main)


def test_mcp_over_http_under_serve(target: str) -> None:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    keys = make_keys(target)
    with running_api(target) as base:
        url = f"{base}/mcp/"

        async def main() -> None:
            http = create_mcp_http_client(headers=bearer(keys.alice))
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                await _session(client)
                resources = await client.list_resources()
                assert "factdiff://schemas" in {str(r.uri) for r in resources.resources}
                found = _data(await client.call_tool("recall", {"query": "INV-9182"}))
                alices = found["hits"][0]["entry_id"]
            other = create_mcp_http_client(headers=bearer(keys.bob))
            async with other, Client(streamable_http_client(url, http_client=other)) as bob:
                assert (await bob.call_tool("get_memory", {"id": alices})).is_error
                hits = _data(await bob.call_tool("recall", {"query": "INV-9182"}))["hits"]
                assert hits == []

        anyio.run(main)
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401
        with client_for(base, keys.bob) as http:
            assert http.get("/v1/entries").json()["total"] == 0  # alice's memories stay hers


NO_AGENT = "no agent: start `factdiff mcp --agent A`, or use an agent key"
UNKNOWN = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"


def _error_text(result: Any) -> str:
    assert result.is_error, result
    (content,) = result.content
    text: str = content.text
    assert not text.startswith("Error executing tool"), text
    return text


async def _mistakes(client: Client, *, has_agent: bool) -> None:
    """Each mistake comes back as the tool's error text, the message the rest of factdiff
    gives for it; the server reports factdiff's version."""
    assert client.server_info is not None
    assert client.server_info.version == version("factdiff")
    if has_agent:
        blank = await client.call_tool("remember", {"text": " \n\t "})
        assert _error_text(blank) == BlankEntry.MESSAGE
    else:
        assert _error_text(await client.call_tool("remember", {"text": "x"})) == NO_AGENT
    missing = await client.call_tool("get_memory", {"id": UNKNOWN})
    assert _error_text(missing) == f"no memory {UNKNOWN!r}"
    bad = await client.call_tool(
        "check_summary", {"source": "x", "summary": "x", "schema": "../.."}
    )
    with pytest.raises(BadSchemaName) as refused:
        check_reference("../..")
    assert _error_text(bad) == str(refused.value)
    unknown = await client.call_tool(
        "check_summary", {"source": "x", "summary": "x", "schema": "no_such_schema"}
    )
    assert "'no_such_schema'" in _error_text(unknown)
    assert "is not registered" in _error_text(unknown)


@pytest.mark.parametrize("agent", [None, "support-bot"])
def test_mcp_tool_errors_are_their_messages_over_stdio(tmp_path: Path, agent: str | None) -> None:
    from mcp.client.stdio import stdio_client

    db = str(tmp_path / "memory.db")
    chosen = ["--agent", agent] if agent else []
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "factdiff.cli", "mcp", *chosen, "--db", db]
    )
    stderr = tmp_path / "stderr.txt"

    async def main() -> None:
        with stderr.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await _mistakes(client, has_agent=agent is not None)

    anyio.run(main)
    logged = stderr.read_text()
    assert "Traceback" not in logged, logged
    assert "Error executing tool" not in logged, logged


def test_mcp_tool_errors_are_their_messages_over_http(target: str) -> None:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    keys = make_keys(target)
    with running_api(target) as base:
        url = f"{base}/mcp/"

        async def main() -> None:
            for key, has_agent in ((keys.alice, True), (keys.operator, False)):
                http = create_mcp_http_client(headers=bearer(key))
                async with http, Client(streamable_http_client(url, http_client=http)) as client:
                    await _mistakes(client, has_agent=has_agent)

        anyio.run(main)
    with open_store(target) as store:
        assert store.entry_page(limit=10).total == 0
