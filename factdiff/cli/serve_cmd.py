"""``factdiff serve``: the HTTP API on uvicorn (needs the ``server`` extra)."""

from __future__ import annotations

import click

from factdiff.bounds import BYTES_MAX, PROCESSES_MAX
from factdiff.cli.options import db_option
from factdiff.errors import UsageError


def require_server_extra() -> None:
    """A one-line error when the ``server`` extra is not installed."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"serve needs the server extra ({exc}): pip install 'factdiff[server]'"
        ) from None


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, PROCESSES_MAX),
    default=1,
    show_default=True,
    help="Processes.",
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(1, BYTES_MAX),
    default=None,
    help="Refuse request bodies over this (413); default 20 MiB.",
)
@db_option
def serve_command(host: str, port: int, workers: int, max_body_bytes: int | None, db: str) -> None:
    """Serve the HTTP API (/docs, /openapi.json, /v1/..., /metrics, /mcp) on the store."""
    require_server_extra()
    import os

    import uvicorn

    from factdiff.store import open_store

    with open_store(db):  # create and migrate once, before the workers start
        pass
    os.environ["FACTDIFF_SERVE_DB"] = db
    if max_body_bytes is not None:
        os.environ["FACTDIFF_SERVE_MAX_BODY_BYTES"] = str(max_body_bytes)
    uvicorn.run(
        "factdiff.service.app:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )
