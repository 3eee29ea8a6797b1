"""The HTTP transport under the provider SDKs.

Both official SDKs speak HTTP through an ``httpx``-style client. Their default (``httpx`` on
``httpcore`` and ``anyio``) costs about 2 ms of CPU per request on a busy event loop; the
``aiohttp`` transport both SDKs ship (``DefaultAioHttpClient``, installed with
``factdiff[llm]``) costs about 1.4 ms, which is most of the client CPU a compression spends
on its model call. The aiohttp transport is used when it is installed, unless
``FACTDIFF_LLM_HTTP=httpx`` asks for the SDK's default; timeouts, connection failures and
status errors reach factdiff as the same SDK exceptions either way.
"""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType
from typing import Any

from factdiff.errors import UsageError

__all__ = ["HTTP_ENV", "http_client", "transport_name"]

HTTP_ENV = "FACTDIFF_LLM_HTTP"
TRANSPORTS = ("aiohttp", "httpx")


def transport_name() -> str:
    """``aiohttp`` or ``httpx``: what ``FACTDIFF_LLM_HTTP`` asks for, else the faster one
    installed."""
    wanted = os.environ.get(HTTP_ENV, "").strip().lower()
    if wanted and wanted not in TRANSPORTS:
        raise UsageError(f"{HTTP_ENV}={wanted!r} is not a transport: use aiohttp or httpx")
    installed = importlib.util.find_spec("aiohttp") is not None
    if wanted == "aiohttp" and not installed:
        raise UsageError(f"{HTTP_ENV}=aiohttp but aiohttp is missing: pip install 'factdiff[llm]'")
    return wanted or ("aiohttp" if installed else "httpx")


def http_client(sdk: ModuleType) -> dict[str, Any]:
    """The ``http_client`` keyword for ``sdk``'s async client (empty: the SDK's default)."""
    if transport_name() == "aiohttp":
        return {"http_client": sdk.DefaultAioHttpClient()}
    return {}
