"""Refuse request bodies over the limit with 413, before a handler reads them."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from factdiff.service.errors import error_response


class BodyLimit:
    """ASGI middleware: a declared ``Content-Length`` over ``max_bytes`` is refused at once;
    a streamed body (``Transfer-Encoding: chunked``) is counted as it arrives and refused
    when it passes the limit. Whatever the app makes of the cut-off body (FastAPI turns the
    failed read into "not valid JSON"), the answer is then this 413: the app's own response
    is dropped."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        seen = 0
        over = started = refused = False

        async def counted() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started, refused
            if refused:
                return  # the rest of the app's answer, dropped
            if message["type"] == "http.response.start":
                started = True
                if over:  # the app answered the cut-off body: answer 413 instead
                    refused = True
                    await self._refuse(scope, receive, send)
                    return
            await send(message)

        try:
            await self.app(scope, counted, guarded_send)
        except _TooLarge:
            if started:  # pragma: no cover - handlers read the body before answering
                raise
            started = True
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            413, "too_large", f"request body over {self.max_bytes} bytes: send less per request"
        )
        await response(scope, receive, send)


class _TooLarge(Exception):
    """A streamed body passed the limit."""
