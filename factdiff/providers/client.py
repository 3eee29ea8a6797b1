"""``LLMClient``: one model behind one provider, with the call policy, usage and cost.

``await client.acomplete(request)`` from any event loop, ``client.complete(request)`` from
synchronous code; both run on the process's model loop (``factdiff.providers.runtime``), so
every ``LLMClient`` for the same endpoint and key shares one SDK client and one in-flight
bound. Each HTTP attempt is counted in ``usage.http_calls``, tokens and cost of every answer in
``usage``.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

from factdiff.providers import meter, runtime
from factdiff.providers.base import Adapter, CallPolicy, ChatRequest, ChatResult, Usage
from factdiff.providers.errors import (
    DeadlineExceeded,
    ProviderError,
    RateLimited,
    TransientProviderError,
)
from factdiff.providers.prices import PriceTable
from factdiff.providers.spec import ModelSpec, parse_model_spec

__all__ = ["LLMClient"]


def _make_adapter(spec: ModelSpec, policy: CallPolicy) -> Adapter:
    if spec.provider == "anthropic":
        from factdiff.providers.anthropic_messages import AnthropicAdapter

        return AnthropicAdapter(spec, policy.connect_timeout_s)
    from factdiff.providers.openai_chat import OpenAIAdapter

    return OpenAIAdapter(spec, policy.connect_timeout_s)


class LLMClient:
    """Calls one model with a bounded number of HTTP requests and an overall deadline."""

    def __init__(
        self,
        spec: ModelSpec | str,
        *,
        policy: CallPolicy | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
        self.spec = parsed.resolved()
        self.policy = policy or CallPolicy()
        self.prices = prices or PriceTable.from_env()
        self.usage = Usage()

    @property
    def name(self) -> str:
        """``provider:model``."""
        return self.spec.name

    def _adapter(self) -> Adapter:
        key = (
            self.spec.provider,
            self.spec.base_url or "",
            self.spec.api_key or "",
            str(self.policy.connect_timeout_s),
        )
        return runtime.adapter(key, lambda: _make_adapter(self.spec, self.policy))

    def complete(self, request: ChatRequest) -> ChatResult:
        """One logical call from synchronous code."""
        result = runtime.run(self._call(request))
        meter.record(result)
        return result

    async def acomplete(self, request: ChatRequest) -> ChatResult:
        """One logical call from any event loop."""
        result = await runtime.run_async(self._call(request))
        meter.record(result)
        return result

    async def _call(self, request: ChatRequest) -> ChatResult:
        http_calls = 0
        adapter = self._adapter()  # the first one imports its SDK: before the clock starts
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.policy.deadline_s
        limit = runtime.semaphore(self.spec.provider, self.spec.base_url or "")
        self.usage.add(calls=1)
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise DeadlineExceeded(
                    f"no answer within the {self.policy.deadline_s} s deadline",
                    model=self.name,
                    http_calls=http_calls,
                )
            try:
                async with asyncio.timeout(remaining):
                    async with limit:
                        http_calls += 1
                        self.usage.add(http_calls=1)
                        reply = await adapter.send(request, max(0.001, deadline - loop.time()))
            except TimeoutError:
                raise DeadlineExceeded(
                    f"no complete answer within the {self.policy.deadline_s} s deadline "
                    "(a slow or hung server)",
                    model=self.name,
                    http_calls=http_calls,
                ) from None
            except ProviderError as exc:
                exc.http_calls = http_calls
                wait = self._retry_wait(exc, http_calls, deadline - loop.time())
                if wait is None:
                    raise
                await asyncio.sleep(wait)
                continue
            cost = self.prices.cost(self.name, reply.tokens_in, reply.tokens_out)
            self.usage.add(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost=cost)
            return ChatResult(
                text=reply.text,
                model=self.name,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                cost_usd=cost,
                http_calls=http_calls,
            )

    def _retry_wait(self, error: ProviderError, attempts: int, left: float) -> float | None:
        """Seconds to wait before the next attempt, or None to give up with ``error``."""
        if attempts >= self.policy.max_attempts:
            return None
        if isinstance(error, RateLimited):
            wait = error.retry_after if error.retry_after is not None else self.policy.backoff(1)
            if wait > self.policy.max_inline_wait_s or wait >= left:
                return None  # the job backoff honours it
            return wait
        if isinstance(error, TransientProviderError):
            wait = self.policy.backoff(attempts)
            return wait if wait < left else None
        return None


def cost_str(cost: Decimal | None) -> str | None:
    """A cost as the string stored with attempts (``None`` stays ``None``)."""
    return None if cost is None else format(cost.normalize(), "f")
