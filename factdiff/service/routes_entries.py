"""Entries: add (one or a batch), get (any tier, with history), list, touch, restore,
forget, and an entry's attempts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse

from factdiff.present.documents import attempt_json, entry_json, show_document
from factdiff.present.paging import decode_cursor, encode_cursor
from factdiff.service.auth import Caller, Principal, Store, owned_entry
from factdiff.service.errors import ERROR_RESPONSES, ApiError, not_found
from factdiff.service.models import (
    AttemptList,
    CreatedId,
    CreatedIds,
    EntryPage,
    ForgetBody,
    ForgottenEntry,
    NewEntriesBody,
    NewEntryBody,
    Restored,
    ShowDocument,
    Touched,
)
from factdiff.store import EntryStatus, NewEntry, Tier

router = APIRouter(prefix="/v1/entries", tags=["entries"], responses=ERROR_RESPONSES)


def _new_entry(caller: Principal, body: NewEntryBody) -> NewEntry:
    agent = body.agent if caller.is_operator else caller.agent_filter(body.agent)
    if agent is None:
        raise ApiError(422, "invalid_request", "agent: an operator key must name the agent")
    return NewEntry(
        agent,
        body.text,
        body.occurred_at,
        dict(body.metadata),
        body.schema_name,
        tuple(body.tags),
        None,
    )


@router.post("", status_code=201, response_model=CreatedId)
def add_entry(body: NewEntryBody, caller: Caller, store: Store) -> CreatedId:
    """Add one hot entry; returns its id."""
    ids = store.add_many([_new_entry(caller, body)], now=datetime.now(UTC))
    return CreatedId(id=ids[0])


@router.post("/batch", status_code=201, response_model=CreatedIds)
def add_entries(body: NewEntriesBody, caller: Caller, store: Store) -> CreatedIds:
    """Add several hot entries in one transaction (all or none); ids in the order given."""
    entries = [_new_entry(caller, item) for item in body.entries]
    return CreatedIds(ids=store.add_many(entries, now=datetime.now(UTC)))


@router.get("", response_model=EntryPage)
def list_entries(
    caller: Caller,
    store: Store,
    agent: Annotated[str | None, Query(min_length=1)] = None,
    tier: Annotated[Tier | None, Query()] = None,
    status: Annotated[EntryStatus | None, Query()] = None,
    tag: Annotated[str | None, Query(min_length=1)] = None,
    limit: Annotated[int, Query(ge=0, le=1000)] = 100,
    cursor: Annotated[str | None, Query(min_length=1)] = None,
) -> JSONResponse:
    """Entries in creation order, filtered by agent, tier, status and tag; cursor paging."""
    if tier is Tier.COLD:
        raise ApiError(
            422, "invalid_request", "tier: entries are hot or warm (cold holds archives)"
        )
    agent = caller.agent_filter(agent)
    filters = {"agent": agent, "tier": tier, "status": status, "tag": tag}
    after = "" if cursor is None else str(decode_cursor(cursor, "list", filters))
    page = store.entry_page(
        agent=agent, tier=tier, status=status, tag=tag, after=after, limit=limit
    )
    next_cursor = (
        None if page.next_after is None else encode_cursor("list", filters, page.next_after)
    )
    return JSONResponse(
        {
            "entries": [entry_json(e) for e in page.items],
            "total": page.total,
            "offset": page.offset,
            "count": len(page.items),
            "next_cursor": next_cursor,
        }
    )


@router.get("/{entry_id}", response_model=ShowDocument)
def get_entry(entry_id: str, caller: Caller, store: Store) -> JSONResponse:
    """The ``factdiff show --json`` document: the entry in any tier, attempts, events."""
    owned_entry(store, caller, entry_id)
    return JSONResponse(show_document(store, entry_id))


@router.get("/{entry_id}/attempts", response_model=AttemptList)
def list_attempts(entry_id: str, caller: Caller, store: Store) -> JSONResponse:
    """The entry's compression attempts, oldest first."""
    owned_entry(store, caller, entry_id)
    attempts = [attempt_json(a) for a in store.attempts(entry_id)]
    return JSONResponse({"entry_id": entry_id, "attempts": attempts})


@router.post("/{entry_id}/touch", response_model=Touched)
def touch_entry(entry_id: str, caller: Caller, store: Store) -> Touched:
    """Mark the entry used now (its dormancy clock restarts)."""
    owned_entry(store, caller, entry_id)
    now = datetime.now(UTC)
    store.touch(entry_id, now)
    return Touched(id=entry_id, last_used_at=now.isoformat())


@router.post("/{entry_id}/restore", response_model=Restored)
def restore_entry(entry_id: str, caller: Caller, store: Store) -> Restored:
    """Bring a warm entry back to hot from its hash-checked archive (409 if already hot)."""
    owned_entry(store, caller, entry_id)
    store.restore(entry_id, datetime.now(UTC))
    return Restored(id=entry_id, tier=Tier.HOT.value)


@router.post("/{entry_id}/forget", response_model=ForgottenEntry)
def forget_entry(
    entry_id: str,
    caller: Caller,
    store: Store,
    body: Annotated[ForgetBody | None, Body()] = None,
) -> JSONResponse:
    """Erase the entry's content from every place the store keeps it (``factdiff forget``),
    leaving its tombstone; an agent key erases its own entries only. Idempotent. The body
    (``{"reason"}``) is optional."""
    body = body or ForgetBody()
    from factdiff.store import EntryNotFound

    owner = None if caller.is_operator else caller.agent
    try:
        (done,) = store.forget([entry_id], now=datetime.now(UTC), reason=body.reason, owner=owner)
    except EntryNotFound:
        raise not_found("entry") from None
    return JSONResponse(done.to_json())
