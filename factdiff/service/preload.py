"""The modules the routes import lazily, imported once when the app is created.

Many modules import what they need inside their functions (a CLI command starts faster). In
a server that is a hazard: the first requests after start run in several threads at once,
and two threads importing one module of an import cycle may each see it half initialised
(``ImportError: partially initialized module``). So ``create_app`` imports these first, in
one thread, before uvicorn accepts a connection; the routes then only find them in
``sys.modules``. A test walks every route group after ``create_app`` and fails when one
imports a module of factdiff (or of its dependencies) that is not loaded by then.
"""

from __future__ import annotations

import importlib

ROUTE_MODULES = (
    "factdiff.store.catalog",
    "factdiff.verify.check",
    "factdiff.compression.components",
    "factdiff.ops.dashboard",
    "factdiff.demotion.demoter",
    "factdiff.present.documents",
    "factdiff.errors",
    "factdiff.extraction",
    "factdiff.ops.health",
    "factdiff.ops.metrics",
    "factdiff.demotion.boundary",
    "factdiff.compression.pipeline",
    "factdiff.demotion.reevaluation",
    "factdiff.retrieve",
    "factdiff.retrieve.attest",
    "factdiff.retrieve.context",
    "factdiff.retrieve.search",
    "factdiff.retrieve.services",
    "factdiff.demotion.review",
    "factdiff.schema.builtin",
    "factdiff.schema.loader",
    "factdiff.settings",
    "factdiff.summarize",
    "factdiff.summarize.extractive",
    "factdiff.summarize.naive",
    "factdiff.ui.entry_view",
    "factdiff.ui.queue",
    "factdiff.ui.schemas_view",
)
"""What the routes import lazily (their own imports bring in the rest)."""


def preload_route_modules() -> None:
    """Import every module of ``ROUTE_MODULES`` (in the calling thread)."""
    for name in ROUTE_MODULES:
        importlib.import_module(name)
