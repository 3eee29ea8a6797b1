"""Retrieval's settings, kept under this name for its imports: the ``retrieval`` section lives
in ``factdiff.settings.retrieval`` and resolves with every other setting
(``factdiff.settings.resolve_retrieval_settings``)."""

from factdiff.settings.resolve import resolve_retrieval_settings
from factdiff.settings.retrieval import (
    NEVER,
    RetrievalSettings,
    TouchMode,
    parse_promote_after,
    parse_touch,
    parse_window,
)

__all__ = [
    "NEVER",
    "RetrievalSettings",
    "TouchMode",
    "parse_promote_after",
    "parse_touch",
    "parse_window",
    "resolve_retrieval_settings",
]
