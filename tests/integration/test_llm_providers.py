"""Failure classes and HTTP call bounds, through the real SDK clients against 127.0.0.1."""

from __future__ import annotations

from decimal import Decimal

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.errors import RuntimeFailure
from factdiff.providers import (
    CallPolicy,
    ChatRequest,
    ContextTooLong,
    DeadlineExceeded,
    LLMClient,
    Message,
    ProviderConfigurationError,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    Refused,
    TransientProviderError,
)
from factdiff.testing import Answer
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

HELLO = ChatRequest("Be terse.", (Message("user", "Say hello."),), max_tokens=50)


def client(server_spec: object, policy: CallPolicy = FAST) -> LLMClient:
    return LLMClient(server_spec, policy=policy, prices=PRICES)  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_carries_tokens_cost_and_one_http_call(provider: str) -> None:
    with scripted(Answer.text("hello").with_usage(1000, 500)) as server:
        llm = client(spec(server, provider))
        result = llm.complete(HELLO)
    assert result.text == "hello"
    assert (result.tokens_in, result.tokens_out) == (1000, 500)
    assert result.cost_usd == Decimal("0.002")  # 1000 x $1/M + 500 x $2/M
    assert result.http_calls == 1
    assert server.request_count == 1
    assert llm.usage.snapshot()["http_calls"] == 1
    recorded = server.requests[0]
    assert recorded.provider == provider
    assert "sk-test-not-a-key" in " ".join(recorded.headers.values())
    assert "Say hello." in recorded.prompt


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "failure",
    [Answer.server_error(500), Answer.server_error(503), Answer.overloaded(), Answer.drop()],
    ids=["500", "503", "529", "drop"],
)
def test_transient_failures_are_retried_by_us_not_the_sdk(provider: str, failure: Answer) -> None:
    with scripted(failure, Answer.text("recovered")) as server:
        result = client(spec(server, provider)).complete(HELLO)
    assert result.text == "recovered"
    assert result.http_calls == server.request_count == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_transient_failures_stop_after_max_attempts(provider: str) -> None:
    policy = CallPolicy(deadline_s=10, max_attempts=3, backoff_s=0)
    with (
        scripted(*[Answer.server_error(500)] * 5) as server,
        pytest.raises(TransientProviderError) as caught,
    ):
        client(spec(server, provider), policy).complete(HELLO)
    assert caught.value.transient
    assert caught.value.failure_class == "transient"
    assert caught.value.http_calls == server.request_count == 3
    assert isinstance(caught.value, RuntimeFailure)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_short_retry_after_is_waited_inside_the_call(provider: str) -> None:
    with scripted(Answer.rate_limited(retry_after=0), Answer.text("ok")) as server:
        result = client(spec(server, provider)).complete(HELLO)
    assert result.text == "ok"
    assert server.request_count == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_long_retry_after_goes_back_to_the_caller(provider: str) -> None:
    with (
        scripted(Answer.rate_limited(retry_after=120), Answer.text("never")) as server,
        pytest.raises(RateLimited) as caught,
    ):
        client(spec(server, provider)).complete(HELLO)
    assert caught.value.retry_after == 120
    assert caught.value.failure_class == "rate_limited"
    assert server.request_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("answer", "error", "failure_class"),
    [
        (Answer.quota_exhausted(), QuotaExhausted, "quota_exhausted"),
        (Answer.refusal(), Refused, "refused"),
        (Answer.context_too_long(), ContextTooLong, "context_too_long"),
        (Answer.unauthorized(), ProviderConfigurationError, "configuration"),
        (Answer.model_not_found(), ProviderConfigurationError, "configuration"),
    ],
    ids=["quota", "refusal", "context", "401", "404"],
)
def test_permanent_failures_are_typed_and_never_retried(
    provider: str, answer: Answer, error: type[ProviderError], failure_class: str
) -> None:
    with (
        scripted(answer, Answer.text("must not be reached")) as server,
        pytest.raises(error) as caught,
    ):
        client(spec(server, provider)).complete(HELLO)
    assert caught.value.failure_class == failure_class
    assert not caught.value.transient
    assert caught.value.http_calls == server.request_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_slow_trickle_is_cut_by_the_overall_deadline(provider: str) -> None:
    policy = CallPolicy(deadline_s=0.5, max_attempts=3, backoff_s=0)
    with (
        scripted(Answer.trickle(interval_s=0.05)) as server,
        pytest.raises(DeadlineExceeded) as caught,
    ):
        client(spec(server, provider), policy).complete(HELLO)
    assert caught.value.transient
    assert server.request_count == 1  # no time left for another attempt


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_hung_server_is_cut_by_the_overall_deadline(provider: str) -> None:
    policy = CallPolicy(deadline_s=0.3, max_attempts=1, backoff_s=0)
    with (
        scripted(Answer.text("late").after(30)) as server,
        pytest.raises(DeadlineExceeded),
    ):
        client(spec(server, provider), policy).complete(HELLO)
    assert server.request_count == 1


def test_one_sdk_client_per_endpoint_per_process() -> None:
    from factdiff.providers import runtime

    with scripted(Answer.text("a"), Answer.text("b")) as server:
        first = client(spec(server, "openai"))
        second = client(spec(server, "openai"))
        first.complete(HELLO)
        second.complete(HELLO)
        assert len(runtime._RUNTIME.adapters) == 1
