"""The MCP server of factdiff (official ``mcp`` SDK): memory tools for agents.

Tools: ``remember`` (text, occurred_at, tags), ``recall`` (query, k: hits with their facts and
known gaps), ``get_memory`` (id: the entry, its facts and known gaps), ``check_summary``
(source, summary, schema: the ``check --json`` document). Resources: the registered fact
schemas (``factdiff://schemas`` and ``factdiff://schemas/{name}``).

Every tool acts for one agent: ``factdiff mcp --agent A`` over stdio, or the agent of the
key that calls ``/mcp`` under ``factdiff serve`` (an operator key may recall across agents
but must not remember without an agent). Another agent's memory is reported missing.

A caller's mistake (no agent, an unknown memory, a blank entry, a malformed schema name) is
the tool's error result with the one-line message the CLI and the HTTP API give for it; the
server names itself ``factdiff`` with factdiff's version.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import CallToolResult, TextContent

from factdiff.errors import InputError, UsageError
from factdiff.present.documents import entry_json, search_document
from factdiff.present.safe_text import one_line

if TYPE_CHECKING:
    from mcp.types import InputRequiredResult

    from factdiff.store import Entry, MemoryStore

INSTRUCTIONS = (
    "Memory with verified compression: remember notes, recall them by the facts they hold "
    "(an amount, a date, an id in any format), and read the facts a summary may have lost "
    "(known gaps) before relying on it."
)


class MemoryNotFound(InputError):
    """No memory with this id for this agent."""


class NoAgent(InputError):
    """A tool that writes was called without an agent to write for."""


class FactdiffMCP(MCPServer):
    """The SDK's server, with a caller's mistake reported as the tool's error text.

    The SDK reports any exception but its own ``ToolError`` as ``Error executing tool NAME``
    and logs its traceback. A ``UsageError`` (no agent, an unknown memory, a blank entry, a
    malformed schema name...) is the caller's to fix: its one-line message is the error
    result's text, and nothing is logged. Anything else stays the SDK's crash report."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            mistake = _usage_error(exc)
            if mistake is None:
                raise
            text = TextContent(type="text", text=one_line(str(mistake)))
            return CallToolResult(content=[text], is_error=True)


def _usage_error(exc: BaseException) -> UsageError | None:
    """The ``UsageError`` a tool raised, found along the SDK's wrapping of it."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, UsageError):
            return seen
        seen = seen.__cause__
    return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("factdiff")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def build_mcp(
    store: Callable[[], MemoryStore],
    agent: Callable[[], str | None],
    *,
    may_see_all: Callable[[], bool] = lambda: False,
) -> FactdiffMCP:
    """An MCP server on ``store()`` acting for ``agent()`` (read per call)."""
    server = FactdiffMCP("factdiff", instructions=INSTRUCTIONS, version=_version())

    def own(entry_id: str) -> Entry:
        from factdiff.store import EntryNotFound

        try:
            entry = store().get(entry_id)
        except EntryNotFound:
            raise MemoryNotFound(f"no memory {entry_id!r}") from None
        if not may_see_all() and entry.agent_id != agent():
            raise MemoryNotFound(f"no memory {entry_id!r}")
        return entry

    # Tools return ``dict[str, object]``: the SDK derives each tool's output schema from the
    # annotation, and cannot from the recursive ``JSON`` alias.
    @server.tool()
    def remember(
        text: str, occurred_at: str | None = None, tags: list[str] | None = None
    ) -> dict[str, object]:
        """Store a memory (text; when it happened as an ISO time; tags). Returns its id."""
        who = agent()
        if who is None:
            raise NoAgent("no agent: start `factdiff mcp --agent A`, or use an agent key")
        when = None
        if occurred_at:
            try:
                when = datetime.fromisoformat(occurred_at)
            except ValueError:
                raise InputError(
                    f"occurred_at {occurred_at[:80]!r} is not an ISO time like 2026-03-14T14:32Z"
                ) from None
            when = when if when.tzinfo else when.replace(tzinfo=UTC)
        entry_id = store().add(
            who, text, now=datetime.now(UTC), occurred_at=when, tags=tuple(tags or ())
        )
        return {"id": entry_id}

    @server.tool()
    def recall(query: str, k: int = 5) -> dict[str, object]:
        """Memories that answer the query, those holding its facts first: each with its
        text, facts and known gaps (facts its summary lost: read them from the facts), and
        ``unverified``: source sentences no check covered that its summary dropped."""
        scope = None if may_see_all() else agent()
        hits = store().search(query, agent=scope, k=max(1, min(k, 100)))
        return {**search_document(query, hits)}

    @server.tool()
    def get_memory(id: str) -> dict[str, object]:
        """One memory by id: the entry (any tier), its fact record, its known gaps and, for a
        warm one, ``verified_share`` and ``unverified`` (source sentences no check covered
        that its summary dropped; ``null`` and ``[]`` where no check was recorded)."""
        from factdiff.retrieve.context import entry_view
        from factdiff.retrieve.hits import facts_json, rounded_share
        from factdiff.retrieve.schemas import SchemaResolver

        current = store()
        entry = own(id)
        view = entry_view(current, entry, SchemaResolver(current))
        return {
            "entry": entry_json(entry),
            "facts": facts_json(view.record),
            "known_gaps": [gap.to_json() for gap in view.gaps],
            "verified_share": rounded_share(None if view.coverage is None else view.coverage.share),
            "unverified": [] if view.coverage is None else list(view.coverage.texts),
        }

    @server.tool()
    def check_summary(source: str, summary: str, schema: str | None = None) -> dict[str, object]:
        """Diff the facts of a summary against its source (missing, changed, added) under a
        registered or built-in schema (default generic): the ``factdiff check`` document."""
        from factdiff.store.catalog import GENERIC, SchemaCatalog
        from factdiff.verify.check import check

        chosen = SchemaCatalog(store()).get(schema or GENERIC, datetime.now(UTC))
        return {**check(source, summary, chosen).to_json()}

    @server.resource("factdiff://schemas", mime_type="application/json")
    def schemas() -> str:
        """The registered fact schemas: name, version, hash."""
        rows = store().schema_versions()
        return json.dumps([{"name": n, "version": v, "hash": h} for n, v, h in rows])

    @server.resource("factdiff://schemas/{name}", mime_type="application/json")
    def schema_definition(name: str) -> str:
        """A registered schema's latest version with its definition."""
        from factdiff.store import SchemaNotRegistered

        try:
            stored = store().get_schema_definition(name)
        except SchemaNotRegistered as exc:
            raise ResourceNotFoundError(one_line(str(exc))) from None
        return json.dumps(
            {"name": name, "version": stored.version, "hash": stored.hash, **stored.definition}
        )

    return server
