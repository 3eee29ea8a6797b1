"""The JSON twins of the review pages (``/ui/...``): the dashboard's figures, the review
queue with filters and counts, an entry with its highlights, the schema history. Operator
keys only; each returns exactly the data its page renders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from factdiff.errors import InputError
from factdiff.service.auth import Operator, Store, owned_entry
from factdiff.service.errors import ERROR_RESPONSES
from factdiff.service.models import JsonObject
from factdiff.ui.queue import SORTS, QueueFilters

router = APIRouter(prefix="/v1", tags=["pages"], responses=ERROR_RESPONSES)


def queue_filters(
    agent: str | None,
    schema: str | None,
    field: str | None,
    older_than: str | None,
    sort: str,
) -> QueueFilters:
    """The queue filters from query parameters (``older_than`` is a duration: ``2d``)."""
    from factdiff.inputs.times import parse_duration

    age = None
    if older_than:
        try:
            age = timedelta(seconds=parse_duration(older_than))
        except (ValueError, InputError) as exc:
            raise InputError(f"older_than: {exc} (a duration such as 12h or 2d)") from None
        except OverflowError:
            raise InputError("older_than: too long (a duration such as 12h or 2d)") from None
    return QueueFilters(agent or None, schema or None, field or None, age, sort)


@router.get("/dashboard", response_model=JsonObject)
def dashboard(caller: Operator, store: Store) -> JSONResponse:
    """Outcomes over time, failure rates per schema version and agent, fields most often
    lost, the review backlog and LLM cost (the page ``/ui/dashboard``)."""
    from factdiff.ops.dashboard import dashboard_figures

    return JSONResponse(dashboard_figures(store))


@router.get("/review-queue", response_model=JsonObject)
def review_queue(
    caller: Operator,
    store: Store,
    agent: Annotated[str | None, Query(max_length=200)] = None,
    schema: Annotated[str | None, Query(max_length=200)] = None,
    field: Annotated[str | None, Query(max_length=200)] = None,
    older_than: Annotated[str | None, Query(max_length=40)] = None,
    sort: Annotated[str, Query(pattern="^(" + "|".join(SORTS) + ")$")] = "age",
) -> JSONResponse:
    """Entries in review, filtered and sorted, with counts (the page ``/ui/reviews``)."""
    from factdiff.ui.queue import review_queue as build

    filters = queue_filters(agent, schema, field, older_than, sort)
    return JSONResponse(build(store, filters, datetime.now(UTC)))


@router.get("/entries/{entry_id}/view", response_model=JsonObject)
def entry_view(entry_id: str, caller: Operator, store: Store) -> JSONResponse:
    """An entry with its source and summary as highlighted segments, its diff, attempts and
    events (the page ``/ui/entries/{id}``)."""
    from factdiff.ui.entry_view import entry_view as build

    owned_entry(store, caller, entry_id)
    return JSONResponse(build(store, entry_id))


@router.get("/schema-history", response_model=JsonObject)
def schema_history(caller: Operator, store: Store) -> JSONResponse:
    """Every schema version with its diff from the one before, and the re-evaluation
    status (the page ``/ui/schemas``)."""
    from factdiff.ui.schemas_view import schema_history as build

    return JSONResponse(build(store))
