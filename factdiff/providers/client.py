"""``LLMClient``: one model behind one provider, with the call policy, usage and cost.

``await client.acomplete(request)`` from any event loop, ``client.complete(request)`` from
synchronous code; both run on the process's model loop (``factdiff.providers.runtime``), so
every ``LLMClient`` for the same endpoint and key shares one SDK client (each request names
its own model) and one in-flight bound. Every logical call, answered or failed, is reported
to the open meters (``factdiff.providers.meter``) as a ``ModelCall`` with its role, tokens,
cost and outcome; ``usage`` keeps this client's running totals.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from decimal import Decimal

from factdiff.errors import (
    DeadlineExceeded,
    FormRejected,
    ModelOutputError,
    ProviderError,
    RateLimited,
    TransientProviderError,
    Truncated,
)
from factdiff.providers import meter, runtime, structured
from factdiff.providers.base import (
    Adapter,
    CallPolicy,
    ChatRequest,
    ChatResult,
    ModelCall,
    ModelParams,
    Reply,
    Usage,
)
from factdiff.providers.prices import PriceTable
from factdiff.providers.spec import ModelSpec, parse_model_spec
from factdiff.providers.transport import transport_name

__all__ = ["LLMClient", "cost_str"]

OK = "ok"


def _make_adapter(spec: ModelSpec, policy: CallPolicy) -> Adapter:
    if spec.provider == "anthropic":
        from factdiff.providers.anthropic_messages import AnthropicAdapter

        return AnthropicAdapter(spec, policy.connect_timeout_s, policy.http)
    from factdiff.providers.openai_chat import OpenAIAdapter

    return OpenAIAdapter(spec, policy.connect_timeout_s, policy.http)


class _Tally:
    """Tokens and HTTP requests of one logical call so far."""

    def __init__(self) -> None:
        self.http_calls = 0
        self.tokens_in: int | None = None
        self.tokens_out: int | None = None

    def add(self, tokens_in: int | None, tokens_out: int | None) -> None:
        if tokens_in is not None:
            self.tokens_in = (self.tokens_in or 0) + tokens_in
        if tokens_out is not None:
            self.tokens_out = (self.tokens_out or 0) + tokens_out


class LLMClient:
    """Calls one model with a bounded number of HTTP requests and an overall deadline."""

    def __init__(
        self,
        spec: ModelSpec | str,
        *,
        policy: CallPolicy | None = None,
        prices: PriceTable | None = None,
        params: ModelParams | None = None,
    ) -> None:
        parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
        self.spec = parsed.resolved()
        self.policy = policy or CallPolicy()
        self.prices = prices or PriceTable.from_env()
        self.params = params or ModelParams()
        structured.forms_for(self.spec.provider, self.params.structured_output)  # checked early
        self.usage = Usage()

    @property
    def name(self) -> str:
        """``provider:model``."""
        return self.spec.name

    @property
    def output_cap(self) -> int:
        """The largest output budget a truncated answer may raise the request to."""
        return self.params.max_output_tokens or self.policy.max_output_tokens

    def _adapter(self) -> Adapter:
        key = (
            self.spec.provider,
            self.spec.base_url or "",
            self.spec.api_key or "",
            str(self.policy.connect_timeout_s),
            transport_name(self.policy.http),
        )
        return runtime.adapter(key, lambda: _make_adapter(self.spec, self.policy))

    @property
    def structured_form(self) -> str | None:
        """The structured-output form found to work for this endpoint and model, if any yet."""
        return structured.known(self._form_key())

    def list_models(self) -> list[str]:
        """The model ids the endpoint lists (one request, within the connect timeout and the
        deadline); a ``ProviderError`` says why not (a refused connection says so)."""
        adapter = self._adapter()
        return runtime.run(adapter.models(self.policy.deadline_s))

    def complete(self, request: ChatRequest) -> ChatResult:
        """One logical call from synchronous code."""
        role = meter.current_role()
        try:
            result, call = runtime.run(self._call(request, role))
        except ProviderError as exc:
            if isinstance(exc.call, ModelCall):
                meter.record(exc.call)
            raise
        meter.record(call)
        return result

    async def acomplete(self, request: ChatRequest) -> ChatResult:
        """One logical call from any event loop."""
        role = meter.current_role()
        try:
            result, call = await runtime.run_async(self._call(request, role))
        except ProviderError as exc:
            if isinstance(exc.call, ModelCall):
                meter.record(exc.call)
            raise
        meter.record(call)
        return result

    def _slot(self) -> AbstractAsyncContextManager[object]:
        bound = runtime.semaphore(self.spec.provider, self.spec.base_url or "")
        return nullcontext() if bound is None else bound

    def _form_key(self) -> structured.Key:
        spec = self.spec
        return (spec.provider, spec.base_url or "", spec.model, self.params.structured_output)

    async def _call(self, request: ChatRequest, role: str) -> tuple[ChatResult, ModelCall]:
        adapter = self._adapter()  # the first one imports its SDK: before the clock starts
        if request.output_schema is None:
            return await self._attempts(adapter, request, role, ())
        key = self._form_key()
        forms = structured.forms_for(self.spec.provider, self.params.structured_output)
        if len(forms) > 1 and structured.known(key) is None:
            async with structured.resolving(key):  # first calls find the form one at a time
                return await self._attempts(adapter, request, role, _from_known(key, forms))
        return await self._attempts(adapter, request, role, _from_known(key, forms))

    async def _attempts(
        self, adapter: Adapter, request: ChatRequest, role: str, forms: tuple[str, ...]
    ) -> tuple[ChatResult, ModelCall]:
        """One logical call; ``forms`` are the structured-output forms left to try, in order
        (empty for plain text). A refused form moves to the next at once: not a failure."""
        loop = asyncio.get_running_loop()
        request = self.params.prepared(request)
        tally = _Tally()
        spent = 0.0  # seconds of requests and backoff: waiting for a slot is not counted
        failures = 0
        tried: list[str] = []
        while True:
            form = forms[len(tried)] if forms else None
            sent = request if form is None else structured.shaped(request, form)
            reply, error, spent = await self._send_once(adapter, sent, tally, spent, loop)
            if reply is not None:
                if form is not None:
                    structured.remember(self._form_key(), form)
                return self._answered(reply, tally, spent, role, form)
            assert error is not None
            if isinstance(error, ModelOutputError) and form is not None:
                # the endpoint answered in this form: what the model wrote in it is the
                # model's failing, so the form is known to work all the same
                structured.remember(self._form_key(), form)
            if isinstance(error, FormRejected) and form is not None:
                tried.append(form)
                if len(tried) < len(forms):
                    continue  # the next form, at once: the endpoint said what it does not take
                error = structured.none_accepted(
                    self.name, self.spec.base_url, tried, str(error), model=self.name
                )
                raise self._failed(error, tally, spent, role)
            if isinstance(error, Truncated) and request.max_tokens < self.output_cap:
                request = replace(request, max_tokens=min(self.output_cap, 2 * request.max_tokens))
                continue  # a larger budget, at once: not a failed request
            failures += 1
            wait = self._retry_wait(error, failures, self.policy.deadline_s - spent)
            if wait is None:
                raise self._failed(error, tally, spent, role)
            await asyncio.sleep(wait)
            spent += wait

    async def _send_once(
        self,
        adapter: Adapter,
        request: ChatRequest,
        tally: _Tally,
        spent: float,
        loop: asyncio.AbstractEventLoop,
    ) -> tuple[Reply | None, ProviderError | None, float]:
        """One HTTP request within the time left; the reply or the typed error."""
        remaining = self.policy.deadline_s - spent
        if remaining <= 0:
            return None, self._deadline(tally, "no answer"), spent
        async with self._slot():
            started = loop.time()
            tally.http_calls += 1
            self.usage.add(http_calls=1)
            try:
                async with asyncio.timeout(remaining):
                    reply = await adapter.send(self.spec.model, self.params, request, remaining)
            except TimeoutError:
                error: ProviderError = self._deadline(tally, "no complete answer")
                return None, error, spent + loop.time() - started
            except ProviderError as exc:
                tally.add(exc.tokens_in, exc.tokens_out)
                return None, exc, spent + loop.time() - started
        tally.add(reply.tokens_in, reply.tokens_out)
        return reply, None, spent + loop.time() - started

    def _deadline(self, tally: _Tally, what: str) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"{what} within the {self.policy.deadline_s:g} s deadline, counted from the first "
            "request (a slow or hung server); raise the deadline if the model is just slow",
            model=self.name,
            http_calls=tally.http_calls,
        )

    def _cost(self, tally: _Tally) -> Decimal | None:
        return self.prices.cost(self.name, tally.tokens_in, tally.tokens_out)

    def _answered(
        self, reply: Reply, tally: _Tally, spent: float, role: str, form: str | None = None
    ) -> tuple[ChatResult, ModelCall]:
        cost = self._cost(tally)
        self.usage.add(calls=1, tokens_in=tally.tokens_in, tokens_out=tally.tokens_out, cost=cost)
        lenient = form is not None and form != "json_schema"
        result = ChatResult(
            text=structured.extract_json(reply.text) if lenient else reply.text,
            model=self.name,
            tokens_in=tally.tokens_in,
            tokens_out=tally.tokens_out,
            cost_usd=cost,
            http_calls=tally.http_calls,
            structured_output=form,
        )
        return result, self._call_record(tally, spent, role, OK, cost)

    def _failed(
        self, error: ProviderError, tally: _Tally, spent: float, role: str
    ) -> ProviderError:
        cost = self._cost(tally)
        self.usage.add(calls=1, tokens_in=tally.tokens_in, tokens_out=tally.tokens_out, cost=cost)
        error.http_calls = tally.http_calls
        error.tokens_in, error.tokens_out = tally.tokens_in, tally.tokens_out
        error.call = self._call_record(tally, spent, role, error.failure_class, cost)
        return error

    def _call_record(
        self, tally: _Tally, spent: float, role: str, outcome: str, cost: Decimal | None
    ) -> ModelCall:
        return ModelCall(
            model=self.name,
            role=role,
            outcome=outcome,
            http_calls=tally.http_calls,
            tokens_in=tally.tokens_in,
            tokens_out=tally.tokens_out,
            cost_usd=cost,
            duration_ms=spent * 1000,
        )

    def _retry_wait(self, error: ProviderError, failures: int, left: float) -> float | None:
        """Seconds to wait before the next request, or None to give up with ``error``."""
        if failures >= self.policy.max_attempts:
            return None
        if isinstance(error, RateLimited):
            wait = error.retry_after if error.retry_after is not None else self.policy.backoff(1)
            if wait > self.policy.max_inline_wait_s or wait >= left:
                return None  # the job backoff honours it
            return wait
        if isinstance(error, TransientProviderError):
            wait = self.policy.backoff(failures)
            return wait if wait < left else None
        return None


def _from_known(key: structured.Key, forms: tuple[str, ...]) -> tuple[str, ...]:
    """``forms`` from the one known to work for ``key`` on (all of them when none is)."""
    found = structured.known(key)
    return forms[forms.index(found) :] if found in forms else forms


def cost_str(cost: Decimal | None) -> str | None:
    """A cost as the string stored with attempts (``None`` stays ``None``)."""
    return None if cost is None else format(cost.normalize(), "f")
