"""MCP over streamable HTTP under ``factdiff serve`` (``/mcp/``), with the API's keys.

Each request must carry ``Authorization: Bearer KEY`` (401 otherwise); the tools act for
that key's agent (an operator key may recall and read across agents, never remember without
an agent). Stateless: every request stands alone, so any API worker can answer it.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from factdiff.service.auth import Principal
from factdiff.service.errors import error_response

if TYPE_CHECKING:
    from factdiff.service.stores import StoreProvider

MCP_PATH = "/mcp"

_caller: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "factdiff_mcp_caller", default=None
)


class McpEndpoint:
    """The MCP app behind a key check; ``lifespan`` runs the MCP session manager."""

    def __init__(self, stores: StoreProvider) -> None:
        from factdiff.service.mcp import build_mcp

        self._stores = stores
        server = build_mcp(stores.get, self._agent, may_see_all=self._operator)
        self.app: ASGIApp = server.streamable_http_app(
            streamable_http_path="/", stateless_http=True, json_response=True
        )

    @staticmethod
    def _agent() -> str | None:
        caller = _caller.get()
        return None if caller is None else caller.agent

    @staticmethod
    def _operator() -> bool:
        caller = _caller.get()
        return caller is not None and caller.is_operator

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run the MCP app's own lifespan (its session manager) for the block."""
        from starlette.applications import Starlette

        assert isinstance(self.app, Starlette)
        async with self.app.router.lifespan_context(self.app):
            yield

    def _principal(self, authorization: str | None) -> Principal | None:
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        key = self._stores.get().api_key_for(authorization[7:].strip())
        if key is None or key.revoked_at is not None:
            return None
        return Principal(key.name, key.scope, key.agent_id)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"authorization")
        caller = await run_in_threadpool(
            self._principal, None if raw is None else raw.decode("latin-1")
        )
        if caller is None:
            response = error_response(
                401, "unauthorized", "send a valid key: Authorization: Bearer KEY"
            )
            await response(scope, receive, send)
            return
        token = _caller.set(caller)
        try:
            await self.app(scope, receive, send)
        finally:
            _caller.reset(token)
