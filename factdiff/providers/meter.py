"""Per-attempt usage metering: every model call made inside ``metered()`` is counted there.

Model clients report each finished call to every meter open in the caller's context (meters
nest), so an attempt can total its summarizer's and its extractor's tokens and cost without
either knowing about attempts. Context variables follow asyncio tasks and ``to_thread``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from factdiff.providers.base import ChatResult, Usage

_OPEN: ContextVar[tuple[Usage, ...]] = ContextVar("factdiff_usage_meters", default=())


@contextmanager
def metered() -> Iterator[Usage]:
    """Count the model calls made inside the block (in this context)."""
    usage = Usage()
    token = _OPEN.set((*_OPEN.get(), usage))
    try:
        yield usage
    finally:
        _OPEN.reset(token)


def record(result: ChatResult) -> None:
    """Add one finished call to every open meter."""
    for usage in _OPEN.get():
        usage.add(
            calls=1,
            http_calls=result.http_calls,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            cost=result.cost_usd,
        )
