"""Retrieval and verification: search, context rendering, attestations, check, compress."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from factdiff.errors import InputError
from factdiff.present.documents import search_document
from factdiff.service.auth import Caller, Store, check_owned
from factdiff.service.errors import ERROR_RESPONSES, ApiError, not_found
from factdiff.service.models import (
    AttestBody,
    CheckBody,
    CheckDocument,
    CompressBody,
    ContextBody,
    JsonObject,
    SearchDocument,
)
from factdiff.service.state import state_of
from factdiff.store import MemoryStore

if TYPE_CHECKING:
    from factdiff.schema.model import FactSchema

router = APIRouter(prefix="/v1", tags=["retrieval"], responses=ERROR_RESPONSES)


def resolve_schema_name(store: MemoryStore, name: str | None) -> FactSchema:
    """A registered or built-in schema by name (``generic`` when ``None``); never a file. A
    malformed name is ``BadSchemaName`` (422), an unknown one 404."""
    from factdiff.errors import UsageError
    from factdiff.schema.names import BadSchemaName
    from factdiff.store.catalog import GENERIC, SchemaCatalog

    try:
        return SchemaCatalog(store).get(name or GENERIC, datetime.now(UTC))
    except BadSchemaName:
        raise  # a malformed name: 422, as at every other door
    except UsageError as exc:
        raise ApiError(404, "not_found", str(exc)) from None


@router.get("/search", response_model=SearchDocument)
def search(
    request: Request,
    caller: Caller,
    store: Store,
    q: Annotated[str, Query(min_length=1, max_length=10_000)],
    k: Annotated[int, Query(ge=1, le=1000)] = 10,
    agent: Annotated[str | None, Query(min_length=1)] = None,
    tier: Annotated[Literal["hot", "warm"] | None, Query()] = None,
    include_source: Annotated[Literal["always", "auto", "never"], Query()] = "auto",
) -> JSONResponse:
    """The ``factdiff search --json`` document: hits with facts and known gaps."""
    if not q.strip():
        raise InputError("q: give a query (not only spaces)")
    timer = state_of(request.app).metrics.search_seconds
    with timer.time():
        hits = store.search(
            q,
            agent=caller.agent_filter(agent),
            k=k,
            tiers=(tier,) if tier else ("hot", "warm"),
            include_source=include_source,
        )
    return JSONResponse(search_document(q, hits))


@router.post("/context", response_model=JsonObject)
def context(body: ContextBody, caller: Caller, store: Store) -> JSONResponse:
    """Exactly what an agent is shown of these entries, with its hash."""
    check_owned(store, caller, body.ids)
    return JSONResponse(store.render_context(body.ids).to_json())


@router.post("/attestations", status_code=201, response_model=JsonObject)
def attest(body: AttestBody, caller: Caller, store: Store) -> JSONResponse:
    """Record that a decision was made on the rendered context of these entries, for their
    agent (decision ids are per agent)."""
    check_owned(store, caller, body.ids)
    attestation = store.attest(body.decision, body.ids, now=datetime.now(UTC))
    return JSONResponse(attestation.to_json(), status_code=201)


@router.get("/attestations/{decision}", response_model=JsonObject)
def check_attestation(
    decision: str,
    caller: Caller,
    store: Store,
    agent: Annotated[str | None, Query(min_length=1)] = None,
) -> JSONResponse:
    """Re-render an attested context: does it still match, and what changed. Decision ids
    are per agent: an agent key reads its own; an operator names ``agent`` when several
    agents hold the id."""
    from factdiff.retrieve.attest import DecisionAmbiguous

    try:
        result = store.check_attestation(decision, caller.agent_filter(agent))
    except DecisionAmbiguous:
        raise  # only an operator, who names no agent, can meet it: 422
    except InputError:
        raise not_found("attestation") from None
    if not caller.is_operator:
        try:
            check_owned(store, caller, [e.entry_id for e in result.attestation.entries])
        except ApiError:
            raise not_found("attestation") from None
    return JSONResponse(result.to_json())


@router.post("/check", response_model=CheckDocument)
def check(body: CheckBody, caller: Caller, store: Store) -> JSONResponse:
    """The ``factdiff check --json`` document of a source/summary pair."""
    from factdiff.verify.check import check as run_check

    schema = resolve_schema_name(store, body.schema_name)
    reference = None if body.reference is None else body.reference.date()
    result = run_check(body.source, body.summary, schema, reference=reference)
    return JSONResponse(result.to_json())


@router.post("/compress", response_model=JsonObject)
def compress(body: CompressBody, caller: Caller, store: Store) -> JSONResponse:
    """The ``factdiff compress --json`` document: the offline pipeline and its ladder."""
    from factdiff.compression.pipeline import compress as run_compress
    from factdiff.demotion.demoter import DemotionSettings

    schema = resolve_schema_name(store, body.schema_name)
    settings = DemotionSettings()
    result = run_compress(body.text, schema, settings.ladder, extractor=settings.extractor)
    return JSONResponse(result.to_json())
