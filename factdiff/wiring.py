"""Composition slots: what a lower layer takes from a higher one, filled by the package root.

The store (``factdiff.store``) imports nothing above it; the index rows and retrieval it
needs (``factdiff.store.indexing.StoreServices``) come from ``factdiff.retrieve``. A store
opened with ``services=`` uses those; one opened without takes ``store_services()``, which
``factdiff/__init__.py`` sets to the rules-based services (imported on first use). This
module imports nothing, so any layer may read it.
"""

from __future__ import annotations

from collections.abc import Callable

store_services: Callable[[], object] | None = None
"""Makes the store's default ``StoreServices`` (set by the package root)."""
