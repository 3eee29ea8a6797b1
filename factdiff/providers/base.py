"""What a provider adapter is asked and what it answers, and the call policy around it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Protocol

__all__ = [
    "CallPolicy",
    "ChatRequest",
    "ChatResult",
    "Message",
    "Reply",
    "Usage",
]


@dataclass(frozen=True)
class Message:
    """One turn of the conversation sent to the model."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatRequest:
    """One logical model call.

    With ``output_schema`` the answer is constrained to that JSON Schema (OpenAI structured
    outputs with ``strict``; Anthropic a forced tool whose ``input_schema`` it is) and the
    reply's ``text`` is the JSON document.
    """

    system: str
    messages: tuple[Message, ...]
    max_tokens: int = 1024
    temperature: float = 0.0
    output_schema: Mapping[str, Any] | None = None
    schema_name: str = "record_facts"


@dataclass(frozen=True)
class Reply:
    """What one HTTP call returned, already checked for truncation and refusal."""

    text: str
    tokens_in: int | None
    tokens_out: int | None


@dataclass(frozen=True)
class ChatResult:
    """The answer to one logical call: text, tokens, cost and HTTP calls made."""

    text: str
    model: str
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: Decimal | None
    http_calls: int


@dataclass(frozen=True)
class CallPolicy:
    """Deadline and retries of one logical call (the SDKs' own retries are off).

    * ``deadline_s`` bounds the whole call, every retry and wait included (a slow trickle
      cannot hang it); each HTTP attempt's read timeout is the time left.
    * at most ``max_attempts`` HTTP requests per logical call. Transient failures (5xx, 529,
      connection, timeout) wait ``min(backoff_cap_s, backoff_s * 2**(n-1))`` before attempt
      n+1; a 429 waits its ``Retry-After`` when that is at most ``max_inline_wait_s`` and fits
      the deadline, else ``RateLimited`` is raised with ``retry_after`` for the job backoff.
    * everything else (quota, truncation, refusal, configuration, context) is never retried.
    """

    deadline_s: float = 120.0
    max_attempts: int = 3
    backoff_s: float = 0.5
    backoff_cap_s: float = 8.0
    max_inline_wait_s: float = 10.0
    connect_timeout_s: float = 5.0

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return float(min(self.backoff_cap_s, self.backoff_s * 2 ** (attempt - 1)))


@dataclass
class Usage:
    """Running totals of one client's calls (thread-safe)."""

    calls: int = 0
    http_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Decimal = Decimal(0)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(
        self,
        *,
        calls: int = 0,
        http_calls: int = 0,
        tokens_in: int | None = None,
        tokens_out: int | None = None,
        cost: Decimal | None = None,
    ) -> None:
        """Count one call or one HTTP request."""
        with self._lock:
            self.calls += calls
            self.http_calls += http_calls
            self.tokens_in += tokens_in or 0
            self.tokens_out += tokens_out or 0
            self.cost_usd += cost or 0

    def snapshot(self) -> dict[str, int | str]:
        """The totals as JSON-ready values."""
        with self._lock:
            return {
                "calls": self.calls,
                "http_calls": self.http_calls,
                "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out,
                "cost_usd": str(self.cost_usd),
            }


class Adapter(Protocol):
    """One provider's wire protocol through its official SDK: one HTTP call per ``send``."""

    async def send(self, request: ChatRequest, timeout_s: float) -> Reply:
        """Make exactly one HTTP request; raise a ``ProviderError`` subclass on failure."""
        ...

    async def aclose(self) -> None:
        """Close the SDK client."""
        ...
