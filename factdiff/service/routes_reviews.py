"""Operator review: the queue with each entry's last diff, and what an operator decides."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse

from factdiff.present.documents import attempt_json, entry_json
from factdiff.present.paging import decode_cursor, encode_cursor
from factdiff.service.auth import Operator, Store, owned_entry
from factdiff.service.errors import ERROR_RESPONSES, ApiError
from factdiff.service.models import (
    ApproveBody,
    BulkResolveBody,
    EditBody,
    KeepHotBody,
    KeptHot,
    ResolveBody,
    Resolved,
    RetryBody,
    RetryOut,
    ReviewDecisionOut,
    ReviewPage,
)
from factdiff.service.state import state_of
from factdiff.store import EntryStatus

router = APIRouter(prefix="/v1/reviews", tags=["reviews"], responses=ERROR_RESPONSES)


@router.get("", response_model=ReviewPage)
def review_queue(
    caller: Operator,
    store: Store,
    agent: Annotated[str | None, Query(min_length=1)] = None,
    limit: Annotated[int, Query(ge=0, le=1000)] = 100,
    cursor: Annotated[str | None, Query(min_length=1)] = None,
) -> JSONResponse:
    """Entries waiting for an operator, oldest first, each with its last attempt and diff,
    the schema used and why it waits (``review``: ``{"reason", "detail"}``)."""
    filters = {"agent": agent}
    after = "" if cursor is None else str(decode_cursor(cursor, "reviews", filters))
    page = store.entry_page(
        agent=agent, status=EntryStatus.REVIEW, exclude_kept=True, after=after, limit=limit
    )
    from factdiff.retrieve.schemas import SchemaResolver
    from factdiff.ui.review_facts import review_state, schema_used

    items = []
    resolver = SchemaResolver(store)
    for entry in page.items:
        attempts = store.attempts(entry.id)
        last = attempt_json(attempts[-1]) if attempts else None
        items.append(
            {
                "entry": entry_json(entry),
                "last_attempt": last,
                "schema": schema_used(store, entry, attempts, resolver),
                "review": review_state(store, entry),
            }
        )
    next_cursor = (
        None if page.next_after is None else encode_cursor("reviews", filters, page.next_after)
    )
    return JSONResponse(
        {
            "reviews": items,
            "total": page.total,
            "offset": page.offset,
            "count": len(items),
            "next_cursor": next_cursor,
        }
    )


@router.post("/resolve", response_model=Resolved)
def resolve_all(
    caller: Operator, store: Store, body: Annotated[BulkResolveBody | None, Body()] = None
) -> Resolved:
    """Return every entry in review (of ``agent``; escalated for ``reason``) to demotion.
    Every key is optional, and so is the body."""
    body = body or BulkResolveBody()
    note = _signed(body.note, caller.name)
    done = store.resolve_reviews(datetime.now(UTC), agent=body.agent, reason=body.reason, note=note)
    return Resolved(resolved=done, count=len(done))


@router.post("/{entry_id}/resolve", response_model=Resolved)
def resolve_one(
    entry_id: str,
    caller: Operator,
    store: Store,
    body: Annotated[ResolveBody | None, Body()] = None,
) -> Resolved:
    """Return one entry from review to automatic demotion (409 if it is not in review); the
    body (``{"note"}``) is optional."""
    body = body or ResolveBody()
    owned_entry(store, caller, entry_id)
    if not store.resolve_review(entry_id, datetime.now(UTC), _signed(body.note, caller.name)):
        raise ApiError(409, "conflict", f"entry {entry_id} is not in review")
    return Resolved(resolved=[entry_id], count=1)


@router.post("/{entry_id}/approve", response_model=ReviewDecisionOut)
def approve_one(entry_id: str, body: ApproveBody, caller: Operator, store: Store) -> JSONResponse:
    """Accept the last summary despite its loss; the reason is recorded with the key's name."""
    from factdiff.demotion.review import approve

    owned_entry(store, caller, entry_id)
    decision = approve(
        store, entry_id, reason=body.reason, key_name=caller.name, now=datetime.now(UTC)
    )
    return JSONResponse(decision.to_json())


@router.post("/{entry_id}/edit", response_model=ReviewDecisionOut)
def edit_one(entry_id: str, body: EditBody, caller: Operator, store: Store) -> JSONResponse:
    """Verify an edited summary: written when its diff passes; refused (422
    ``summary_refused``, with the diff) when it fails."""
    from factdiff.demotion.review import SummaryRefused, edit

    owned_entry(store, caller, entry_id)
    try:
        decision = edit(
            store, entry_id, summary=body.summary, key_name=caller.name, now=datetime.now(UTC)
        )
    except SummaryRefused as refused:
        raise ApiError(
            422, "summary_refused", str(refused), {"check": refused.result.to_json()}
        ) from None
    return JSONResponse(decision.to_json())


@router.post("/{entry_id}/retry", response_model=RetryOut)
def retry_one(
    request: Request, entry_id: str, body: RetryBody, caller: Operator, store: Store
) -> RetryOut:
    """Make one attempt now on the chosen rung (with the configured ladder); a failure
    sends the entry back to review."""
    from factdiff.demotion.demoter import DemotionSettings
    from factdiff.demotion.review import retry

    owned_entry(store, caller, entry_id)
    settings = DemotionSettings.from_settings(state_of(request.app).settings)
    done = retry(
        store,
        entry_id,
        rung=body.rung,
        key_name=caller.name,
        now=datetime.now(UTC),
        settings=settings,
    )
    return RetryOut.model_validate(done)


@router.post("/{entry_id}/keep-hot", response_model=KeptHot)
def keep_hot(entry_id: str, body: KeepHotBody, caller: Operator, store: Store) -> KeptHot:
    """Keep the entry hot for good: never demoted, out of the queue (resolve undoes it)."""
    owned_entry(store, caller, entry_id)
    kept = store.keep_hot(entry_id, datetime.now(UTC), key_name=caller.name, reason=body.reason)
    return KeptHot(id=entry_id, kept=True, already=not kept)


def _signed(note: str, key_name: str) -> str:
    """A note with the key that made the decision."""
    return f"{note} (key {key_name})" if note else f"by key {key_name}"
