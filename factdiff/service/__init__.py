"""``factdiff serve``: the HTTP API on one store, with scoped keys, metrics and MCP.

Needs the ``server`` extra (``pip install 'factdiff[server]'``). ``create_app(db)`` builds
the FastAPI application; ``factdiff serve`` runs it on uvicorn. Importing ``factdiff`` never
imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["create_app"]


def create_app(db: str, **options: Any) -> FastAPI:
    """The API on the store at ``db`` (see ``factdiff.service.app.create_app``)."""
    from factdiff.service.app import create_app as build

    return build(db, **options)
