"""``factdiff serve``: the HTTP API on one store, with scoped keys, metrics and MCP.

Needs the ``server`` extra (``pip install 'factdiff[server]'``). ``create_app(db)`` builds
the FastAPI application; ``factdiff serve`` runs it on uvicorn. Importing ``factdiff`` never
imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, Unpack

if TYPE_CHECKING:
    from fastapi import FastAPI

    from factdiff.settings import Settings

__all__ = ["AppOptions", "create_app"]


class AppOptions(TypedDict, total=False):
    """The keyword options of ``factdiff.service.app.create_app``."""

    max_body_bytes: int
    event_poll_seconds: float
    create: bool
    settings: Settings | None


def create_app(db: str, **options: Unpack[AppOptions]) -> FastAPI:
    """The API on the store at ``db`` (see ``factdiff.service.app.create_app``)."""
    from factdiff.service.app import create_app as build

    return build(db, **options)
