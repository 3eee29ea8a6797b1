"""``factdiff mcp``: the MCP server over stdio, for one agent."""

from __future__ import annotations

import click

from factdiff.cli.options import db_option, not_blank
from factdiff.errors import UsageError


@click.command("mcp")
@click.option("--agent", callback=not_blank, help="The agent whose memory the tools act on.")
@db_option
def mcp_command(agent: str | None, db: str) -> None:
    """Serve memory tools over MCP on stdio: remember, recall, get_memory, check_summary.

    Without --agent, recall and get_memory cover every agent and remember is refused.
    """
    try:
        from factdiff.service.mcp import build_mcp
    except ImportError as exc:
        raise UsageError(
            f"mcp needs the server extra ({exc}): pip install 'factdiff[server]'"
        ) from None
    from factdiff.service.stores import StoreProvider

    stores = StoreProvider(db)
    stores.get()  # open (and migrate) before the first request
    server = build_mcp(stores.get, lambda: agent, may_see_all=lambda: agent is None)
    try:
        server.run("stdio")
    finally:
        stores.close()
