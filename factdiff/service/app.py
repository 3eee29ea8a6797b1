"""The FastAPI application of ``factdiff serve``: routes, errors, limits, offline docs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from factdiff.service.docs import install_docs
from factdiff.service.errors import install_error_handlers
from factdiff.service.limits import BodyLimit
from factdiff.service.state import DEFAULT_MAX_BODY_BYTES, ServiceState
from factdiff.service.stores import RequestStores, StoreProvider
from factdiff.settings import ServiceSection, Settings, load_settings

if TYPE_CHECKING:
    from factdiff.ops.metrics import ProcessMetrics

API_TITLE = "factdiff"


def create_app(
    db: str,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    event_poll_seconds: float = 0.5,
    create: bool = True,
    settings: Settings | None = None,
) -> FastAPI:
    """The API on the store at ``db`` (a SQLite path or a ``postgresql://`` DSN), with
    ``settings`` (default: resolved once here, from the settings file and the environment)."""
    from importlib.metadata import version

    from factdiff.service import (
        routes_entries,
        routes_ops,
        routes_retrieval,
        routes_reviews,
        routes_schemas,
    )
    from factdiff.service.mcp_http import MCP_PATH, McpEndpoint
    from factdiff.service.preload import preload_route_modules

    preload_route_modules()  # before any request: no import races between the first ones
    resolved = load_settings() if settings is None else settings
    stores = StoreProvider(db, create=create)
    metrics = _process_metrics(stores, resolved)
    mcp = McpEndpoint(stores)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with mcp.lifespan():
            yield
        stores.close()

    app = FastAPI(
        title=API_TITLE,
        version=version("factdiff"),
        description="Agent memory compression without truth loss, over HTTP.",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.factdiff = ServiceState(
        stores=stores,
        metrics=metrics,
        settings=resolved,
        max_body_bytes=max_body_bytes,
        event_poll_seconds=event_poll_seconds,
    )
    install_error_handlers(app)
    install_docs(app)
    for module in (routes_ops, routes_entries, routes_retrieval, routes_reviews, routes_schemas):
        app.include_router(module.router)
    # Review pages (issue 15): their JSON twins under /v1 and the pages under /ui.
    from factdiff.service import routes_pages
    from factdiff.service.routes_ui import router as ui_router

    app.include_router(routes_pages.router)
    app.include_router(ui_router)
    app.mount(MCP_PATH, mcp)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(RequestStores, provider=stores)  # outermost: one store per request
    return app


def _process_metrics(stores: StoreProvider, settings: Settings) -> ProcessMetrics:
    """This process's metrics: store totals read through ``stores`` at each scrape."""
    from datetime import timedelta

    from factdiff.ops.metrics import ProcessMetrics, snapshot_of

    older_than = timedelta(seconds=settings.demotion.older_than)
    return ProcessMetrics(lambda: snapshot_of(stores.get(), older_than))


def app_from_environment() -> FastAPI:
    """The app ``factdiff serve`` starts in each worker process: the ``service`` section it
    was handed (``FACTDIFF_SERVE_DB``, ``FACTDIFF_SERVE_MAX_BODY_BYTES``)."""
    import os

    service = ServiceSection.from_environ(os.environ)
    limit = service.max_body_bytes
    return create_app(
        service.db, max_body_bytes=DEFAULT_MAX_BODY_BYTES if limit is None else limit, create=False
    )
