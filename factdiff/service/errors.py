"""Errors of the HTTP API: JSON ``{"error": {"code", "message"}}`` with a stable code.

Codes: ``unauthorized`` (401), ``forbidden`` (403), ``not_found`` (404), ``conflict`` (409),
``too_large`` (413), ``invalid_request`` (422), ``summary_refused`` (422, with the diff),
``internal`` (500), ``unavailable`` (503).

A 5xx says what to do and nothing else: never where the store lives nor what its driver
said (a path, a DSN, a SQL error). Those go to the server's log (logger ``factdiff.service``),
one line per failed request; an unexpected exception's traceback is logged by uvicorn.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from factdiff.errors import (
    FactdiffError,
    InputError,
    MigrationRequired,
    ProviderError,
    RuntimeFailure,
    StoreError,
    UsageError,
)
from factdiff.present.safe_text import one_line
from factdiff.store.model import (
    EntryNotFound,
    SchemaNotRegistered,
    SchemaVersionConflict,
    StoreBusy,
    WrongTier,
)

log = logging.getLogger("factdiff.service")


class ErrorBody(BaseModel):
    """What went wrong, in one line, with a stable code."""

    model_config = ConfigDict(extra="forbid")

    code: str
    message: str
    details: dict[str, object] | None = None


class ErrorDocument(BaseModel):
    """Every error response."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorBody


class ApiError(UsageError):
    """A request the service refuses, with its HTTP status and stable code."""

    def __init__(
        self, status: int, code: str, message: str, details: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


def not_found(what: str) -> ApiError:
    """The 404 for an entry (or anything) that is missing or out of the key's scope."""
    return ApiError(404, "not_found", f"{what} not found")


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, object] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """The JSON response for an error (``headers`` such as ``Allow`` kept)."""
    body = ErrorDocument(error=ErrorBody(code=code, message=one_line(message), details=details))
    sent = dict(headers or {})
    if status == 401:
        sent["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, headers=sent)


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorDocument, "description": description}
    for status, description in (
        (401, "No key, or an unknown or revoked key"),
        (403, "The key is valid but out of scope"),
        (404, "Not found (or another agent's)"),
        (409, "Conflict with the entry's state (tier, review, version)"),
        (413, "Request body too large"),
        (422, "Invalid request"),
    )
}
"""Responses every route may give, for the OpenAPI document."""


def _status_for(exc: FactdiffError) -> tuple[int, str]:
    if isinstance(exc, EntryNotFound | SchemaNotRegistered):
        return 404, "not_found"
    if isinstance(exc, SchemaVersionConflict | WrongTier):
        return 409, "conflict"
    if isinstance(exc, InputError | UsageError):
        return 422, "invalid_request"
    if isinstance(exc, RuntimeFailure):
        return 503, "unavailable"
    return 500, "internal"  # pragma: no cover - every factdiff error is one of the above


def public_message(exc: FactdiffError) -> str:
    """What a 5xx tells the client about ``exc``: what to do, without the store's location
    or the driver's words."""
    if isinstance(exc, MigrationRequired):
        return "the store's schema is older than this factdiff: run `factdiff migrate`"
    if isinstance(exc, StoreBusy):
        return "the store is busy with other writers: try again shortly"
    if isinstance(exc, StoreError):
        return "the store is unavailable: try again later (the server's log says why)"
    if isinstance(exc, ProviderError):
        return "the model provider is unavailable: try again later"
    return "the service cannot answer now: try again later (the server's log says why)"


def install_error_handlers(app: FastAPI) -> None:
    """Map API, validation, HTTP and factdiff errors to the error document."""

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.code, exc.message, exc.details)

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        where = ".".join(one_line(p) for p in first.get("loc", ()))
        said = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        message = f"{where}: {said}" if where else said
        problems = [
            {"loc": [one_line(p) for p in e.get("loc", ())], "msg": one_line(e.get("msg"))}
            for e in errors
        ]
        return error_response(422, "invalid_request", message, {"problems": problems})

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        codes = {401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "not_allowed"}
        if exc.status_code == 400:  # a body that is not JSON at all: a wrong type too
            return error_response(422, "invalid_request", "the body is not valid JSON: send JSON")
        code = codes.get(exc.status_code, "error")
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, code, exc.detail, headers=headers)

    async def factdiff_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, FactdiffError)
        status, code = _status_for(exc)
        if isinstance(exc, EntryNotFound):
            return error_response(404, "not_found", "entry not found")
        if status >= 500:
            where = f"{request.method} {request.url.path}"
            log.warning("%s answered %d: %s", where, status, one_line(f"{exc}"))
            return error_response(status, code, public_message(exc))
        return error_response(status, code, str(exc))

    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        """Anything else: a 500 with the error document (uvicorn logs the traceback)."""
        return error_response(500, "internal", "internal error: the server's log says why")

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(FactdiffError, factdiff_error)
    app.add_exception_handler(Exception, unexpected_error)
