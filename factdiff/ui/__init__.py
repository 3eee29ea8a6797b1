"""The review pages and dashboard of ``factdiff serve`` (``/ui/...``), for operators.

Every page is rendered from the same data function as its JSON twin under ``/v1``:

=================  ==========================================  ===========================
page               JSON twin                                   data function
=================  ==========================================  ===========================
/ui/reviews        GET /v1/review-queue                        ``queue.review_queue``
/ui/entries/{id}   GET /v1/entries/{id}/view                   ``entry_view.entry_view``
/ui/search         GET /v1/search                              ``documents.search_document``
/ui/dashboard      GET /v1/dashboard                           ``dashboard.dashboard_figures``
/ui/schemas        GET /v1/schema-history                      ``schemas_view.schema_history``
=================  ==========================================  ===========================

Sign-in (``/ui/login``, field ``key``) takes an operator key and sets a signed, HttpOnly,
SameSite=Strict session cookie; every form carries a CSRF token checked on the server.
Entry text is data: templates autoescape and highlights are computed server-side as
segments (``highlight``). The pages (``factdiff.service.routes_ui.router``) need the ``server``
extra (Jinja2); the data modules need nothing beyond the core.
"""

from __future__ import annotations

__all__: list[str] = []
