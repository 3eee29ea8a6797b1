"""The HTTP transport under the provider SDKs (the ``llm_http`` setting).

Both official SDKs speak HTTP through an ``httpx``-style client. Their default (``httpx`` on
``httpcore`` and ``anyio``) costs about 2 ms of CPU per request on a busy event loop; the
``aiohttp`` transport both SDKs ship (``DefaultAioHttpClient``, installed with
``factdiff[llm]``) costs about 1.4 ms, which is most of the client CPU a compression spends
on its model call. ``auto`` (the default) takes aiohttp when it is installed, else httpx;
timeouts, connection failures and status errors reach factdiff as the same SDK exceptions
either way.
"""

from __future__ import annotations

import functools
import importlib.util
from types import ModuleType
from typing import TYPE_CHECKING

from factdiff.errors import UsageError

if TYPE_CHECKING:
    import httpx2

__all__ = ["TRANSPORTS", "http_client", "transport_name"]

TRANSPORTS = ("auto", "aiohttp", "httpx")


def transport_name(choice: str = "auto") -> str:
    """``aiohttp`` or ``httpx``: the transport ``choice`` (one of ``TRANSPORTS``) means here."""
    wanted = choice.strip().lower()
    if wanted not in TRANSPORTS:
        raise UsageError(f"llm_http={choice!r} is not a transport: use auto, aiohttp or httpx")
    installed = _aiohttp_installed()
    if wanted == "aiohttp" and not installed:
        raise UsageError("llm_http=aiohttp but aiohttp is missing: pip install 'factdiff[llm]'")
    if wanted == "auto":
        return "aiohttp" if installed else "httpx"
    return wanted


@functools.cache
def _aiohttp_installed() -> bool:
    return importlib.util.find_spec("aiohttp") is not None


def http_client(sdk: ModuleType, choice: str = "auto") -> httpx2.AsyncClient | None:
    """The ``http_client`` argument of ``sdk``'s async client (None: the SDK's default)."""
    if transport_name(choice) == "aiohttp":
        client: httpx2.AsyncClient = sdk.DefaultAioHttpClient()
        return client
    return None
