"""``factdiff serve``: the HTTP API on uvicorn (needs the ``server`` extra).

The store is created and migrated once, the listening socket bound, and one line printed
(``factdiff serving on http://HOST:PORT (store: ...)``: the DSN without its password) before
the first connection is accepted; with one process the app (and every module its routes
import) is built before the socket is bound.
"""

from __future__ import annotations

import click

from factdiff.cli.options import db_option
from factdiff.errors import UsageError
from factdiff.inputs.bounds import BYTES_MAX, PROCESSES_MAX


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
@click.option(
    "--ssl-certfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Serve HTTPS with this certificate (PEM); needs --ssl-keyfile.",
)
@click.option(
    "--ssl-keyfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The certificate's private key (PEM).",
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    metavar="IPS",
    help="Proxies trusted to say the client's scheme and address (X-Forwarded-Proto, "
    "X-Forwarded-For): comma-separated addresses or networks, or '*'. Default: "
    "FORWARDED_ALLOW_IPS, else 127.0.0.1 only.",
)
@db_option
def serve_command(
    host: str,
    port: int,
    workers: int,
    max_body_bytes: int | None,
    ssl_certfile: str | None,
    ssl_keyfile: str | None,
    forwarded_allow_ips: str | None,
    db: str,
) -> None:
    """Serve the HTTP API (/docs, /openapi.json, /v1/..., /metrics, /mcp) on the store."""
    require_server_extra()
    if (ssl_certfile is None) != (ssl_keyfile is None):
        raise click.UsageError("give both --ssl-certfile and --ssl-keyfile, or neither")
    import os

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from factdiff.settings import ServiceSection
    from factdiff.store import open_store

    with open_store(db) as store:  # create and migrate once, before the workers start
        location = store.location
    os.environ.update(ServiceSection(db, max_body_bytes).to_environ())
    config = uvicorn.Config(
        "factdiff.service.app:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    if workers == 1:
        config.load()  # the app and its routes' modules, before a connection can come
    server = uvicorn.Server(config)
    sock = config.bind_socket()
    scheme = "https" if ssl_certfile else "http"
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"factdiff serving on {scheme}://{shown}:{bound_port} (store: {location})")
    try:
        if workers > 1:
            Multiprocess(config, sockets=[sock]).run()
        else:
            server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    if workers == 1 and not server.started:
        raise SystemExit(3)
