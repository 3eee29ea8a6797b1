"""Operations: health and readiness, stats, demotion passes, events and their live stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from factdiff.errors import InputError
from factdiff.inputs.bounds import ID_MAX
from factdiff.present.documents import event_json
from factdiff.present.paging import decode_cursor, encode_cursor
from factdiff.service.auth import Caller, Operator, Store, store_of
from factdiff.service.errors import ERROR_RESPONSES, ApiError, error_response
from factdiff.service.models import DemotionBody, EventPage, Health, JsonObject
from factdiff.service.state import state_of
from factdiff.store import EventType

if TYPE_CHECKING:
    from factdiff.demotion.boundary import EntryResult
    from factdiff.demotion.demoter import DemotionSettings
    from factdiff.service.stores import StoreProvider
    from factdiff.store import Event, Page

router = APIRouter(tags=["operations"], responses=ERROR_RESPONSES)

SSE_PAGE = 200
"""Events sent per store read by the live stream."""


@router.get("/healthz", response_model=Health, response_model_exclude_none=True)
def healthz() -> Health:
    """The process is up (no store access)."""
    return Health(status="ok")


@router.get("/readyz", response_model=Health, responses={503: {"model": Health}})
def readyz(request: Request) -> JSONResponse:
    """The store is reachable and its migrations are current (503 otherwise)."""
    expected = None
    try:
        store = store_of(request)
        expected = store.dialect.version
        version = store.schema_version()
    except Exception as exc:
        down = Health(status=f"unavailable: {type(exc).__name__}", expected_version=expected)
        return JSONResponse(down.model_dump(), status_code=503)
    ready = version == expected
    body = Health(
        status="ok" if ready else "migrate: run `factdiff migrate`",
        schema_version=version,
        expected_version=expected,
    )
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


@router.get(
    "/metrics",
    response_model=None,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "Prometheus text format",
        }
    },
)
def metrics(request: Request, caller: Operator) -> Response:
    """Prometheus metrics (operator key: they cover every agent); names in the reference."""
    body, content_type = state_of(request.app).metrics.exposition()
    return Response(body, media_type=content_type)


@router.get("/v1/stats", response_model=JsonObject)
def stats(caller: Operator, store: Store) -> JSONResponse:
    """The ``factdiff stats --json`` document (operator: it covers every agent)."""
    return JSONResponse(store.stats())


@router.post("/v1/demotions", response_model=JsonObject)
def run_demotion(
    request: Request,
    caller: Operator,
    store: Store,
    body: Annotated[DemotionBody | None, Body()] = None,
) -> JSONResponse:
    """One demotion pass with the configured settings (operator); the ``demote --json``
    report. Every key is optional, and so is the body."""
    body = body or DemotionBody()
    from factdiff.demotion.demoter import Demoter, DemotionReport, DemotionSettings
    from factdiff.errors import DemotionPaused
    from factdiff.inputs.times import parse_duration

    settings = DemotionSettings.from_settings(state_of(request.app).settings)
    if body.older_than is not None:
        try:
            seconds = parse_duration(body.older_than)
        except (ValueError, InputError) as exc:
            raise ApiError(422, "invalid_request", f"older_than: {exc}") from None
        settings = _with_older_than(settings, timedelta(seconds=seconds))
    demoter = Demoter(store, settings)
    timer = state_of(request.app).metrics.demotion_seconds
    try:
        report = demoter.run(
            datetime.now(UTC),
            agent=body.agent,
            limit=body.limit,
            keep_results=False,
            on_result=lambda result: timer.observe(_attempt_seconds(result)),
        )
    except DemotionPaused as paused:
        if not isinstance(paused.report, DemotionReport):
            raise
        report = paused.report
    return JSONResponse(report.to_json())


def _attempt_seconds(result: EntryResult) -> float:
    """How long one entry's attempt took (0 when nothing was attempted)."""
    return 0.0 if result.attempt is None else result.attempt.duration_ms / 1000


def _with_older_than(settings: DemotionSettings, older_than: timedelta) -> DemotionSettings:
    from dataclasses import replace

    return replace(settings, older_than=older_than)


def _event_filters(
    type_: EventType | None, entry: str | None, agent: str | None
) -> dict[str, str | None]:
    return {"type": type_, "entry": entry, "agent": agent, "since": None, "until": None}


@router.get("/v1/events", response_model=EventPage)
def list_events(
    caller: Caller,
    store: Store,
    type: Annotated[EventType | None, Query()] = None,
    entry: Annotated[str | None, Query(min_length=1)] = None,
    agent: Annotated[str | None, Query(min_length=1)] = None,
    since: Annotated[datetime | None, Query()] = None,
    until: Annotated[datetime | None, Query()] = None,
    limit: Annotated[int, Query(ge=0, le=1000)] = 200,
    cursor: Annotated[str | None, Query(min_length=1)] = None,
) -> JSONResponse:
    """Events in append order, filtered; cursor paging. An agent key sees its agent's."""
    agent = caller.agent_filter(agent)
    filters = {
        "type": type,
        "entry": entry,
        "agent": agent,
        "since": None if since is None else since.isoformat(),
        "until": None if until is None else until.isoformat(),
    }
    after = 0 if cursor is None else decode_cursor(cursor, "events", filters)
    if not isinstance(after, int):
        raise InputError("cursor: not a cursor of the events listing")
    page = store.event_page(
        entry,
        agent=agent,
        type=type,
        since=_aware(since),
        until=_aware(until),
        after=after,
        limit=limit,
    )
    next_cursor = (
        None if page.next_after is None else encode_cursor("events", filters, page.next_after)
    )
    return JSONResponse(
        {
            "events": [event_json(e) for e in page.items],
            "total": page.total,
            "offset": page.offset,
            "count": len(page.items),
            "next_cursor": next_cursor,
        }
    )


def _aware(moment: datetime | None) -> datetime | None:
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


@router.get(
    "/v1/events/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"}},
)
async def stream_events(
    request: Request,
    caller: Caller,
    type: Annotated[EventType | None, Query()] = None,
    agent: Annotated[str | None, Query(min_length=1)] = None,
    after: Annotated[int | None, Query(ge=0, le=ID_MAX)] = None,
    limit: Annotated[int | None, Query(ge=1, le=1_000_000)] = None,
) -> Response:
    """New events as server-sent events (``id:`` is the event id, ``data:`` its JSON), from
    after the event id ``after`` (default: events from now on). ``Last-Event-ID`` resumes.
    ``limit`` closes the stream after that many events."""
    agent = caller.agent_filter(agent)
    stores = state_of(request.app).stores
    poll = state_of(request.app).event_poll_seconds
    resume = request.headers.get("last-event-id")
    if resume is not None:
        if not resume.isdigit():
            return error_response(422, "invalid_request", "Last-Event-ID must be an event id")
        after = int(resume)
    if after is None:
        after = await run_in_threadpool(lambda: stores.get().last_event_id())

    async def events() -> AsyncIterator[str]:
        cursor, sent = after, 0
        yield ": factdiff events\n\n"
        while limit is None or sent < limit:
            page = await run_in_threadpool(_event_page, stores, agent, type, cursor)
            for event in page.items:
                cursor = event.id
                data = json.dumps(event_json(event), ensure_ascii=False)
                yield f"id: {event.id}\nevent: {event.type.value}\ndata: {data}\n\n"
                sent += 1
                if limit is not None and sent >= limit:
                    return
            if page.next_after is None:
                if await request.is_disconnected():
                    return
                await asyncio.sleep(poll)

    return StreamingResponse(events(), media_type="text/event-stream")


def _event_page(
    stores: StoreProvider, agent: str | None, type_: EventType | None, after: int
) -> Page[Event]:
    """The next page of the live stream (in a worker thread: its own store)."""
    return stores.get().event_page(agent=agent, type=type_, after=after, limit=SSE_PAGE)
