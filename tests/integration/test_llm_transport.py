"""Both HTTP transports under the SDKs (aiohttp, the SDK's httpx) behave alike: answers,
retried transient failures, rate limits and deadlines, on both wire formats."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("aiohttp")

from factdiff.providers import (
    CallPolicy,
    ChatRequest,
    DeadlineExceeded,
    LLMClient,
    Message,
    ModelSpec,
    RateLimited,
    TransientProviderError,
    runtime,
)
from factdiff.providers.transport import transport_name
from factdiff.testing import Answer
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

HELLO = ChatRequest("Be terse.", (Message("user", "Say hello."),), max_tokens=50)


@pytest.fixture(params=["aiohttp", "httpx"])
def transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test once per transport."""
    runtime.shutdown()
    yield str(request.param)
    runtime.shutdown()


def client(server_spec: object, transport: str, policy: CallPolicy = FAST) -> LLMClient:
    policy = replace(policy, http=transport)
    return LLMClient(server_spec, policy=policy, prices=PRICES)  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_and_a_retried_failure(transport: str, provider: str) -> None:
    """Both transports answer and retry; each keeps its own SDK client."""
    assert transport_name(transport) == transport
    with scripted(Answer.drop(), Answer.server_error(503), Answer.text("hello")) as server:
        result = client(spec(server, provider), transport).complete(HELLO)
    assert result.text == "hello"
    assert result.http_calls == server.request_count == 3
    headers = {k.lower(): v for k, v in server.requests[-1].headers.items()}
    assert "sk-test-not-a-key" in " ".join(headers.values())  # the SDK's own auth
    if provider == "anthropic":
        assert headers["anthropic-version"]  # the SDK's default headers on a posted body


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_rate_limit_reads_its_retry_after(transport: str, provider: str) -> None:
    policy = CallPolicy(deadline_s=5, max_attempts=1, backoff_s=0)
    with scripted(Answer.rate_limited(7)) as server, pytest.raises(RateLimited) as caught:
        client(spec(server, provider), transport, policy).complete(HELLO)
    assert caught.value.retry_after == 7
    assert server.request_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_trickling_body_is_cut_by_the_deadline(transport: str, provider: str) -> None:
    policy = CallPolicy(deadline_s=0.5, max_attempts=3, backoff_s=0)
    with (
        scripted(Answer.trickle(interval_s=0.05)) as server,
        pytest.raises(DeadlineExceeded),
    ):
        client(spec(server, provider), transport, policy).complete(HELLO)
    assert server.request_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_hung_server_is_cut_by_the_deadline(transport: str, provider: str) -> None:
    policy = CallPolicy(deadline_s=0.3, max_attempts=1, backoff_s=0)
    with scripted(Answer.text("late").after(30)) as server, pytest.raises(DeadlineExceeded):
        client(spec(server, provider), transport, policy).complete(HELLO)
    assert server.request_count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_closed_local_port_is_refused_not_timed_out(transport: str, provider: str) -> None:
    """A local model server that is not running answers with a refused connection at once:
    the error says so (the aiohttp transport reported it as a timeout), on every request."""
    with socket.socket() as reserved:  # bound, never listening: every connect is refused
        reserved.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{reserved.getsockname()[1]}"
        closed = ModelSpec(provider, "local", base_url=url, api_key="sk-test-not-a-key")
        policy = CallPolicy(deadline_s=10, max_attempts=2, backoff_s=0)
        with pytest.raises(TransientProviderError) as caught:
            client(closed, transport, policy).complete(HELLO)
    message = str(caught.value)
    assert "connection refused by http://127.0.0.1:" in message, message
    assert "timed out" not in message.lower(), message
    assert caught.value.failure_class == "transient"
    assert caught.value.http_calls == 2
