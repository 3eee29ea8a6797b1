"""The ``/ui`` router: sign-in, the review queue, an entry, search, dashboard, schemas.

Each page renders the document of its JSON twin (see ``factdiff.ui``); forms post back here
with the session's CSRF token, and a post without the right token is refused (403).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from typing import TypeVar
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from factdiff.errors import FactdiffError
from factdiff.service.auth import store_of
from factdiff.service.errors import ApiError
from factdiff.service.state import state_of
from factdiff.settings import Settings
from factdiff.store import EntryNotFound, MemoryStore
from factdiff.store.api_keys import KeyScope
from factdiff.ui import render
from factdiff.ui.session import COOKIE, SESSION_SECONDS, Session, SessionSigner

router = APIRouter(prefix="/ui", include_in_schema=False)

MAX_FORM_BYTES = 1024 * 1024
"""Form posts over this are refused (an edited summary is far smaller)."""

NOTICES = {
    "approved": "Approved: the summary was written to the warm tier with its known gaps.",
    "edited": "Edited summary verified and written.",
    "kept": "Kept hot: the entry leaves the queue and is never demoted.",
    "retried": "Retried: see the new attempt below.",
}
"""Messages a redirect may show (by code: nothing from the query string is echoed)."""

T = TypeVar("T")


def _signer(request: Request) -> SessionSigner:
    extra = state_of(request.app).extra
    signer = extra.get("ui_signer")
    if not isinstance(signer, SessionSigner):
        signer = SessionSigner()
        extra["ui_signer"] = signer
    return signer


def _session(request: Request) -> Session | None:
    return _signer(request).load(request.cookies.get(COOKIE))


def _with_cookie(request: Request, response: Response, session: Session) -> Response:
    response.set_cookie(
        COOKIE,
        _signer(request).dump(session),
        max_age=SESSION_SECONDS,
        path="/ui",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def _operator_name(store: MemoryStore, session: Session | None) -> str | None:
    """The signed-in key's name while its session lives in the store (not signed out, not
    expired) and the key is a live operator key."""
    if session is None or session.key_name is None or session.token is None:
        return None
    if store.ui_session_key(session.token, datetime.now(UTC)) != session.key_name:
        return None
    for key in store.api_keys():
        if key.name == session.key_name:
            ok = key.scope is KeyScope.OPERATOR and key.revoked_at is None
            return key.name if ok else None
    return None


def _page(
    request: Request, template: str, context: Mapping[str, object], status: int = 200
) -> Response:
    session = _session(request) or Session.fresh()
    html = render.page(template, {**context, "csrf": session.csrf, "path": request.url.path})
    response = HTMLResponse(html, status_code=status, headers=render.HEADERS)
    return _with_cookie(request, response, session)


def _to_login(request: Request) -> Response:
    return RedirectResponse("/ui/login", status_code=303)


def _signed_in(request: Request) -> str | None:
    return _operator_name(store_of(request), _session(request))


async def _form(request: Request) -> dict[str, str]:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise ApiError(413, "too_large", "the form is too large")
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in parsed.items()}


def _refused(request: Request, message: str, status: int) -> Response:
    return _page(request, "error.html", {"title": "Refused", "message": message}, status)


@router.get("")
def ui_home() -> Response:
    """The review queue is the start page."""
    return RedirectResponse("/ui/reviews", status_code=303)


@router.get("/login")
def login_page(request: Request) -> Response:
    """The sign-in form (an operator key in the field ``key``)."""
    return _page(request, "login.html", {"title": "Sign in", "message": None})


@router.post("/login")
async def login(request: Request) -> Response:
    """Sign in with an operator key: 401 for an unknown or revoked key, 403 for an agent
    key, else a new session and the review queue."""
    form = await _form(request)
    session = _session(request)
    if session is None or not session.csrf_matches(form.get("csrf")):
        return _refused(request, "The form expired or was forged: reload and try again.", 403)
    secret = form.get("key", "").strip()
    store = await run_in_threadpool(store_of, request)
    key = await run_in_threadpool(store.api_key_for, secret) if secret else None
    if key is None or key.revoked_at is not None:
        message = "Unknown or revoked key: create one with `factdiff keys create --operator`."
        return _page(request, "login.html", {"title": "Sign in", "message": message}, 401)
    if key.scope is not KeyScope.OPERATOR:
        return _refused(
            request,
            "Agent keys cannot sign in to the review pages: use an operator key.",
            403,
        )
    signed_in = Session.fresh(key.name)
    expires_at = datetime.fromtimestamp(signed_in.expires, UTC)
    token = await run_in_threadpool(
        lambda: store.start_ui_session(key.name, expires_at=expires_at, now=datetime.now(UTC))
    )
    response = RedirectResponse("/ui/reviews", status_code=303)
    return _with_cookie(request, response, replace(signed_in, token=token))


@router.post("/logout")
async def logout(request: Request) -> Response:
    """End the session, in the store too: a copy of its cookie is refused afterwards."""
    form = await _form(request)
    session = _session(request)
    if session is None or not session.csrf_matches(form.get("csrf")):
        return _refused(request, "The form expired or was forged: reload and try again.", 403)
    token = session.token
    if token is not None:
        store = await run_in_threadpool(store_of, request)
        await run_in_threadpool(store.end_ui_session, token, datetime.now(UTC))
    return _with_cookie(request, RedirectResponse("/ui/login", status_code=303), Session.fresh())


@router.get("/reviews")
def reviews_page(
    request: Request,
    agent: str | None = None,
    schema: str | None = None,
    field: str | None = None,
    older_than: str | None = None,
    sort: str = "age",
) -> Response:
    """Entries awaiting review (twin: ``GET /v1/review-queue``)."""
    from factdiff.service.routes_pages import queue_filters
    from factdiff.ui.queue import SORTS, review_queue

    who = _signed_in(request)
    if who is None:
        return _to_login(request)
    context: dict[str, object] = {"title": "Review queue", "who": who, "sorts": SORTS}
    try:
        filters = queue_filters(agent, schema, field, older_than, sort)
    except FactdiffError as exc:
        return _page(request, "error.html", {**context, "message": str(exc)}, 422)
    queue = review_queue(store_of(request), filters, datetime.now(UTC))
    return _page(request, "reviews.html", {**context, "queue": queue, "older_than": older_than})


@router.get("/entries/{entry_id}")
def entry_page(request: Request, entry_id: str, done: str | None = None) -> Response:
    """One entry with highlights, diff, attempts, events and review actions (twin:
    ``GET /v1/entries/{id}/view``)."""
    who = _signed_in(request)
    if who is None:
        return _to_login(request)
    return _entry(request, who, entry_id, notice=NOTICES.get(done or ""))


def _entry(
    request: Request,
    who: str,
    entry_id: str,
    *,
    notice: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> Response:
    from factdiff.ui.entry_view import entry_view

    try:
        view = entry_view(store_of(request), entry_id)
    except EntryNotFound:
        return _page(
            request,
            "error.html",
            {"title": "Not found", "who": who, "message": "No entry has that id."},
            404,
        )
    context = {
        "title": f"Entry {entry_id}",
        "who": who,
        "view": view,
        "notice": notice,
        "problem": problem,
    }
    return _page(request, "entry.html", context, status)


@router.post("/entries/{entry_id}/{action}")
async def entry_action(request: Request, entry_id: str, action: str) -> Response:
    """Approve (``reason``), edit (``summary``), keep hot (``reason``) or retry (``rung``)."""
    form = await _form(request)
    session = _session(request)
    if session is None or not session.csrf_matches(form.get("csrf")):
        return _refused(request, "The form expired or was forged: reload and try again.", 403)
    store = await run_in_threadpool(store_of, request)
    who = await run_in_threadpool(_operator_name, store, session)
    if who is None:
        return _to_login(request)
    act = _actions(state_of(request.app).settings).get(action)
    if act is None:
        return _refused(request, "Unknown action: approve, edit, keep-hot or retry.", 404)
    try:
        done = await run_in_threadpool(_in_thread, request, act, entry_id, form, who)
    except (FactdiffError, ApiError) as exc:
        message = exc.message if isinstance(exc, ApiError) else str(exc)
        return await run_in_threadpool(
            lambda: _entry(request, who, entry_id, problem=message, status=422)
        )
    target = f"/ui/entries/{quote(entry_id, safe='')}?done={done}"
    return RedirectResponse(target, status_code=303)


Action = Callable[[MemoryStore, str, dict[str, str], str], str]


def _in_thread(request: Request, act: Action, entry_id: str, form: dict[str, str], who: str) -> str:
    store = store_of(request)
    store.get(entry_id)
    return act(store, entry_id, form, who)


def _approve(store: MemoryStore, entry_id: str, form: dict[str, str], who: str) -> str:
    from factdiff.demotion.review import approve

    approve(store, entry_id, reason=form.get("reason", ""), key_name=who, now=datetime.now(UTC))
    return "approved"


def _edit(store: MemoryStore, entry_id: str, form: dict[str, str], who: str) -> str:
    from factdiff.demotion.review import SummaryRefused, edit

    try:
        edit(store, entry_id, summary=form.get("summary", ""), key_name=who, now=datetime.now(UTC))
    except SummaryRefused as refused:
        lost = ", ".join(
            sorted(
                {
                    str(f.field)
                    for f in (
                        *refused.result.diff.missing,
                        *refused.result.diff.changed,
                        *refused.result.diff.added,
                    )
                }
            )
        )
        raise ApiError(422, "summary_refused", f"{refused} ({lost})") from None
    return "edited"


def _keep_hot(store: MemoryStore, entry_id: str, form: dict[str, str], who: str) -> str:
    reason = form.get("reason", "").strip()
    if not reason:
        raise ApiError(422, "invalid_request", "keeping an entry hot needs a reason")
    store.keep_hot(entry_id, datetime.now(UTC), key_name=who, reason=reason)
    return "kept"


def _retry(
    store: MemoryStore, entry_id: str, form: dict[str, str], who: str, *, resolved: Settings
) -> str:
    from factdiff.demotion.demoter import DemotionSettings
    from factdiff.demotion.review import retry

    rung_text = form.get("rung", "").strip()
    if not rung_text.isdigit():
        raise ApiError(422, "invalid_request", "rung: a ladder rung number (0 is the first)")
    settings = DemotionSettings.from_settings(resolved)
    retry(
        store,
        entry_id,
        rung=int(rung_text),
        key_name=who,
        now=datetime.now(UTC),
        settings=settings,
    )
    return "retried"


def _actions(resolved: Settings) -> dict[str, Action]:
    """The entry page's actions; a retry takes the service's settings."""
    return {
        "approve": _approve,
        "edit": _edit,
        "keep-hot": _keep_hot,
        "retry": partial(_retry, resolved=resolved),
    }


@router.get("/search")
def search_page(request: Request, q: str = "", agent: str | None = None, k: int = 10) -> Response:
    """Retrieval results with matched facts and known gaps (twin: ``GET /v1/search``)."""
    from factdiff.present.documents import search_document

    who = _signed_in(request)
    if who is None:
        return _to_login(request)
    context: dict[str, object] = {"title": "Search", "who": who, "q": q, "agent": agent or ""}
    if not q.strip():
        return _page(request, "search.html", {**context, "result": None})
    if not 1 <= k <= 1000:
        return _page(request, "error.html", {**context, "message": "k: 1 to 1000"}, 422)
    hits = store_of(request).search(q, agent=agent or None, k=k)
    return _page(request, "search.html", {**context, "result": search_document(q, hits)})


@router.get("/dashboard")
def dashboard_page(request: Request) -> Response:
    """Charts of outcomes, failure rates, lost fields, backlog and cost (twin:
    ``GET /v1/dashboard``)."""
    from factdiff.ops.dashboard import dashboard_figures

    who = _signed_in(request)
    if who is None:
        return _to_login(request)
    figures = dashboard_figures(store_of(request))
    context = {"title": "Dashboard", "who": who, "figures": figures}
    return _page(request, "dashboard.html", context)


@router.get("/schemas")
def schemas_page(request: Request) -> Response:
    """Schema versions, their diffs and re-evaluation status (twin:
    ``GET /v1/schema-history``)."""
    from factdiff.ui.schemas_view import schema_history

    who = _signed_in(request)
    if who is None:
        return _to_login(request)
    history = schema_history(store_of(request))
    return _page(request, "schemas.html", {"title": "Schemas", "who": who, "history": history})


@router.get("/static/{name}")
def static_file(name: str) -> Response:
    """The pages' own assets (no CDN): the stylesheet and the SVG chart module."""
    asset = render.STATIC.get(name)
    if asset is None:
        return Response("not found", status_code=404, media_type="text/plain")
    return Response(
        render.static_bytes(name),
        media_type=asset,
        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
    )
