"""What a provider adapter is asked and what it answers, the call policy around it, per-model
parameters, and the accounting of every call."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Literal, Protocol

from factdiff.inputs.json_toml import JSON
from factdiff.providers.accounting import ModelCall

__all__ = [
    "CallPolicy",
    "ChatRequest",
    "ChatResult",
    "Message",
    "ModelCall",
    "ModelParams",
    "Reply",
    "Usage",
]

TokenParam = Literal["max_tokens", "max_completion_tokens"]
OMIT = "omit"


@dataclass(frozen=True)
class Message:
    """One turn of the conversation sent to the model."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatRequest:
    """One logical model call.

    With ``output_schema`` the answer is asked to follow that JSON Schema in the form the
    endpoint takes (``output_form``: OpenAI structured outputs with ``strict`` or JSON mode,
    Anthropic a forced tool, or the schema in the instructions) and the reply's ``text`` is
    the JSON document.
    """

    system: str
    messages: tuple[Message, ...]
    max_tokens: int = 1024
    temperature: float = 0.0
    output_schema: Mapping[str, JSON] | None = None
    schema_name: str = "record_facts"
    output_form: str = "json_schema"
    """How ``output_schema`` is asked for on the wire (set by the client per endpoint:
    ``json_schema``, ``json_object`` or ``prompt``; see ``factdiff.providers.structured``)."""


@dataclass(frozen=True)
class ModelParams:
    """Request parameters of one model (settings ``[models."provider:model"]``).

    * ``token_param``: which name carries the output budget. ``None`` picks it: OpenAI's own
      API gets ``max_completion_tokens`` (reasoning models reject ``max_tokens``),
      OpenAI-compatible servers ``max_tokens``; Anthropic always takes ``max_tokens``.
    * ``temperature``: a number replaces the component's, ``"omit"`` sends none (models that
      fix their sampling); ``None`` keeps the component's (OpenAI only; Anthropic is sent a
      temperature only when one is set here).
    * ``max_tokens``: the first output budget, instead of the component's.
    * ``max_output_tokens``: how far a truncated answer may raise the budget (doubling).
    * ``structured_output``: how JSON is asked for (``factdiff.providers.structured``):
      ``auto`` tries the strictest form the endpoint takes, or one of ``json_schema``,
      ``json_object``, ``prompt``.
    * ``extra``: further body parameters sent as they are (``reasoning_effort``...).
    """

    token_param: TokenParam | None = None
    temperature: float | Literal["omit"] | None = None
    max_tokens: int | None = None
    max_output_tokens: int | None = None
    structured_output: str = "auto"
    extra: Mapping[str, object] = field(default_factory=dict)

    def prepared(self, request: ChatRequest) -> ChatRequest:
        """``request`` with this model's first output budget."""
        if self.max_tokens is None or self.max_tokens == request.max_tokens:
            return request
        return replace(request, max_tokens=self.max_tokens)

    def temperature_for(self, request: ChatRequest) -> float | None:
        """The temperature to send, or None to send none."""
        if self.temperature == OMIT:
            return None
        if isinstance(self.temperature, int | float):
            return float(self.temperature)
        return request.temperature


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
    structured_output: str | None = None
    """The form that produced a structured answer (``json_schema``, ``json_object``,
    ``prompt``); None for plain text."""


@dataclass(frozen=True)
class CallPolicy:
    """Deadline and retries of one logical call (the SDKs' own retries are off).

    * ``deadline_s`` bounds the call from its first request on, every retry and backoff
      included (a slow trickle cannot hang it); waiting for a provider slot
      (``set_provider_limit``) does not count. Each request's read timeout is the time left.
    * at most ``max_attempts`` HTTP requests per logical call. Transient failures (5xx, 529,
      connection, timeout) wait ``min(backoff_cap_s, backoff_s * 2**(n-1))`` before attempt
      n+1; a 429 waits its ``Retry-After`` when that is at most ``max_inline_wait_s`` and fits
      the deadline, else ``RateLimited`` is raised with ``retry_after`` for the job backoff.
    * a truncated answer is asked again at once with twice the output budget, up to
      ``max_output_tokens`` (or the model's own cap), then ``Truncated`` is raised.
    * everything else (quota, refusal, configuration, context) is never retried.
    * ``http`` picks the HTTP transport under the SDK: ``aiohttp``, ``httpx`` or ``auto``.
    """

    deadline_s: float = 120.0
    max_attempts: int = 3
    backoff_s: float = 0.5
    backoff_cap_s: float = 8.0
    max_inline_wait_s: float = 10.0
    connect_timeout_s: float = 5.0
    max_output_tokens: int = 16384
    http: str = "auto"
    """The HTTP transport under the SDK (``factdiff.providers.transport``)."""

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return float(min(self.backoff_cap_s, self.backoff_s * 2 ** (attempt - 1)))


@dataclass
class Usage:
    """Running totals of model calls (thread-safe), and the calls themselves when kept.

    ``cost_usd`` sums the priced calls; ``unpriced_calls`` counts calls whose cost is
    unknown, and ``known_cost`` is ``cost_usd`` only when there are none (else None).
    """

    calls: int = 0
    http_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Decimal = Decimal(0)
    unpriced_calls: int = 0
    records: list[ModelCall] = field(default_factory=list)
    keep_records: bool = False
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

    def record(self, call: ModelCall) -> None:
        """Count one finished logical call (and keep it when ``keep_records``)."""
        with self._lock:
            self.calls += 1
            self.http_calls += call.http_calls
            self.tokens_in += call.tokens_in or 0
            self.tokens_out += call.tokens_out or 0
            if call.cost_usd is None:
                if call.tokens_in or call.tokens_out:
                    self.unpriced_calls += 1
            else:
                self.cost_usd += call.cost_usd
            if self.keep_records:
                self.records.append(call)

    @property
    def known_cost(self) -> Decimal | None:
        """The total cost, or None when some billed call has no known price."""
        with self._lock:
            return None if self.unpriced_calls else self.cost_usd

    def snapshot(self) -> dict[str, int | str | None]:
        """The totals as JSON-ready values (cost None when some call is unpriced)."""
        cost = self.known_cost
        with self._lock:
            return {
                "calls": self.calls,
                "http_calls": self.http_calls,
                "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out,
                "cost_usd": None if cost is None else format(cost, "f"),
                "unpriced_calls": self.unpriced_calls,
            }


class Adapter(Protocol):
    """One provider's wire protocol through its official SDK: one HTTP call per ``send``."""

    async def send(
        self, model: str, params: ModelParams, request: ChatRequest, timeout_s: float
    ) -> Reply:
        """Make exactly one HTTP request for ``model``; raise a ``ProviderError`` subclass on
        failure (with ``tokens_in``/``tokens_out`` set when the answer reported them)."""
        ...

    async def models(self, timeout_s: float) -> list[str]:
        """The model ids the endpoint lists (``GET /models``), in one HTTP request."""
        ...

    async def aclose(self) -> None:
        """Close the SDK client."""
        ...
