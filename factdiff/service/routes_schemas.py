"""Fact schemas: list, show and diff the registered versions; register one and re-evaluate
warm entries under a newer version (operator)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse

from factdiff.service.auth import Caller, Operator, Store
from factdiff.service.errors import ERROR_RESPONSES, ApiError
from factdiff.service.models import (
    ReevaluateBody,
    ReevaluationDocument,
    RegisterSchemaBody,
    SchemaDiff,
    SchemaDocument,
    SchemaList,
    SchemaRegistered,
    SchemaSummary,
)
from factdiff.values.base import JSON

router = APIRouter(prefix="/v1/schemas", tags=["schemas"], responses=ERROR_RESPONSES)


@router.get("", response_model=SchemaList)
def list_schemas(caller: Caller, store: Store) -> SchemaList:
    """Every registered schema version, by name and version."""
    return SchemaList(
        schemas=[SchemaSummary(name=n, version=v, hash=h) for n, v, h in store.schema_versions()]
    )


@router.post("", status_code=201, response_model=SchemaRegistered)
def register_schema(body: RegisterSchemaBody, caller: Operator, store: Store) -> SchemaRegistered:
    """Register a schema version from YAML text or a built-in's name (operator)."""
    from factdiff.schema.builtin import builtin_schema, builtin_schema_source
    from factdiff.schema.loader import schema_from_yaml

    if (body.yaml is None) == (body.builtin is None):
        raise ApiError(422, "invalid_request", "give one of yaml (the schema text) or builtin")
    source: str | None
    if body.yaml is not None:
        schema, source = schema_from_yaml(body.yaml, "<request>"), body.yaml
    else:
        assert body.builtin is not None
        try:
            schema = builtin_schema(body.builtin)
        except KeyError as exc:
            raise ApiError(422, "invalid_request", str(exc.args[0])) from None
        source = builtin_schema_source(body.builtin)
    from factdiff.demotion.reevaluation import Reevaluator

    new, plan = Reevaluator(store).register(schema, datetime.now(UTC), source)
    return SchemaRegistered(
        name=schema.name,
        version=schema.version,
        hash=schema.hash,
        new=new,
        due_for_reevaluation=plan.due,
    )


@router.post("/{name}/reevaluate", response_model=ReevaluationDocument)
def reevaluate_schema(
    name: str,
    caller: Operator,
    store: Store,
    body: Annotated[ReevaluateBody | None, Body()] = None,
) -> JSONResponse:
    """``factdiff reevaluate --schema NAME``: re-diff the warm entries compressed under an
    older version of ``name``; failed ones go back to hot (operator). The body is optional."""
    body = body or ReevaluateBody()
    from factdiff.demotion.reevaluation import Reevaluator
    from factdiff.errors import UsageError

    now = datetime.now(UTC)
    reevaluator = Reevaluator(store)
    try:
        plan = reevaluator.plan(
            name, now, to_version=body.to_version, agent=body.agent, include_all=body.all
        )
    except UsageError as exc:
        raise ApiError(404, "not_found", str(exc)) from None
    report = reevaluator.execute(plan, now, agent=body.agent, dry_run=body.dry_run)
    return JSONResponse(report.to_json())


@router.get("/{name}", response_model=SchemaDocument)
def show_schema(
    name: str,
    caller: Caller,
    store: Store,
    version: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> SchemaDocument:
    """A registered schema version (the latest by default) with its definition."""
    stored = store.get_schema_definition(name, version)
    return SchemaDocument(
        name=name,
        version=stored.version,
        hash=stored.hash,
        definition=stored.definition,
        source_text=stored.source_text,
    )


@router.get("/{name}/diff", response_model=SchemaDiff)
def diff_schema(
    name: str,
    caller: Caller,
    store: Store,
    from_version: Annotated[int, Query(alias="from", ge=1, le=2**31 - 1)],
    to_version: Annotated[int, Query(alias="to", ge=1, le=2**31 - 1)],
) -> SchemaDiff:
    """Fields added, removed and changed (type, criticality, cues...) between two versions."""
    old = _fields(store.get_schema_definition(name, from_version).definition)
    new = _fields(store.get_schema_definition(name, to_version).definition)
    return SchemaDiff(
        name=name,
        from_version=from_version,
        to_version=to_version,
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
        changed=sorted(f for f in set(old) & set(new) if old[f] != new[f]),
    )


def _fields(definition: Mapping[str, JSON]) -> dict[str, JSON]:
    fields = definition.get("fields", {})
    return dict(fields) if isinstance(fields, dict) else {}
