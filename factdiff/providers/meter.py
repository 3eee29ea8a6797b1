"""Per-attempt usage metering: every model call made inside ``metered()`` is counted there.

Model clients report each finished logical call (answered or failed) to every meter open in
the caller's context (meters nest), so an attempt can total its summarizer's and its
extractor's tokens and cost without either knowing about attempts. ``role("summarize")``
labels the calls made inside it. Context variables follow asyncio tasks and ``to_thread``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from factdiff.providers.base import ModelCall, Usage

__all__ = ["current_role", "metered", "record", "role"]

_OPEN: ContextVar[tuple[Usage, ...]] = ContextVar("factdiff_usage_meters", default=())
_ROLE: ContextVar[str] = ContextVar("factdiff_call_role", default="")


@contextmanager
def metered(*, keep_records: bool = True) -> Iterator[Usage]:
    """Count the model calls made inside the block (in this context); ``records`` keeps each
    call's ``ModelCall`` unless ``keep_records`` is False."""
    usage = Usage(keep_records=keep_records)
    token = _OPEN.set((*_OPEN.get(), usage))
    try:
        yield usage
    finally:
        _OPEN.reset(token)


@contextmanager
def role(name: str) -> Iterator[None]:
    """Label the calls made inside the block with ``name`` (``summarize``, ``extract_source``)."""
    token = _ROLE.set(name)
    try:
        yield
    finally:
        _ROLE.reset(token)


def current_role() -> str:
    """The role label of calls made here now."""
    return _ROLE.get()


def record(call: ModelCall) -> None:
    """Add one finished call to every open meter."""
    for usage in _OPEN.get():
        usage.record(call)
