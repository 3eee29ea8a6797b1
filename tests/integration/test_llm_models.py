"""Issue 9, defects 1, 2 and 9: every request goes to the model of the component that made
it, the deadline counts from sending, and models that reject parameters are configurable.
All through the real SDKs against the scripted server, on both wire formats."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.components import extractor_from_spec, ladder_from_spec
from factdiff.compression.pipeline import compress
from factdiff.demotion.demoter import Demoter, DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.errors import DeadlineExceeded, ParameterRejected, ProviderConfigurationError
from factdiff.providers import (
    CallPolicy,
    ChatRequest,
    LLMClient,
    Message,
    ModelParams,
    set_provider_limit,
)
from factdiff.providers.runtime import run_async
from factdiff.schema.model import FactSchema
from factdiff.settings import resolve_settings
from factdiff.store import Tier, open_store
from factdiff.testing import Answer, RecordedRequest, RulesOracle, ScriptedLLMServer
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec

SOURCE = worked("source")
FAITHFUL = worked("faithful")
FLUENT = worked("fluent")
T0 = datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
NOW = T0 + timedelta(days=30)


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLMServer]:
    """One scripted server as both providers' endpoint (specs resolve from the environment)."""
    with scripted() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
        yield server


def models_by_kind(server: ScriptedLLMServer) -> dict[str, set[str]]:
    """The model of every request, by kind: ``extract`` (structured) or ``summarize``."""
    seen: dict[str, set[str]] = {"extract": set(), "summarize": set()}
    for request in server.requests:
        kind = "extract" if request.structured else "summarize"
        seen[kind].add(str(request.body["model"]))
    return seen


def fluent_then_faithful(customer_service: FactSchema) -> RulesOracle:
    """Extraction answers grounded in each text; the first summary loses facts."""
    summaries = iter([FLUENT])
    return RulesOracle(customer_service, summary=lambda _text: next(summaries, FAITHFUL))


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("jury", [False, True], ids=["llm", "jury"])
def test_compress_sends_each_request_to_its_components_model(
    endpoints: ScriptedLLMServer, customer_service: FactSchema, provider: str, jury: bool
) -> None:
    """Same endpoint, two models, a failed rung then a retry on the cached source record."""
    endpoints.responder = fluent_then_faithful(customer_service)
    prefix = "jury:" if jury else ""
    extractor = extractor_from_spec(f"{prefix}{provider}:extract-model")
    ladder = ladder_from_spec(f"{provider}:summary-model:80,{provider}:summary-model:200:strict")
    result = compress(SOURCE, customer_service, ladder, extractor=extractor)
    assert [a.outcome.value for a in result.attempts] == ["failed", "clean"]
    assert models_by_kind(endpoints) == {
        "extract": {"extract-model"},
        "summarize": {"summary-model"},
    }
    # one source extraction, two summaries, two summary extractions
    assert len(endpoints.requests) == 5
    assert {c.model for c in result.calls if c.role == "summarize"} == {f"{provider}:summary-model"}
    assert {c.model for c in result.calls if c.role.startswith("extract")} == {
        f"{provider}:extract-model"
    }


@pytest.mark.parametrize("provider", PROVIDERS)
def test_demotion_retry_with_a_cached_source_record_keeps_the_models_apart(
    endpoints: ScriptedLLMServer,
    customer_service: FactSchema,
    provider: str,
    tmp_path: Path,
) -> None:
    """Pass 1 fails (source record cached) after a 500 retried inside the call; pass 2
    extracts only the summary: still with the extractor's model, never the summarizer's."""
    oracle = fluent_then_faithful(customer_service)
    failures = iter([Answer.server_error(500)])

    def responder(request: RecordedRequest) -> Answer:
        if not request.structured:
            failure = next(failures, None)
            if failure is not None:
                return failure
        return oracle(request)

    endpoints.responder = responder
    settings = resolve_settings(
        {
            "extractor": f"{provider}:extract-model",
            "ladder": f"{provider}:summary-model:80,{provider}:summary-model:200:strict",
            "backoff": "1h",
        },
        {},
    )
    with open_store(tmp_path / "m.db") as store:
        entry_id = store.add(
            "a", SOURCE, now=T0, occurred_at=T0, schema="customer_service", last_used_at=T0
        )
        demoter = Demoter(store, DemotionSettings.from_settings(settings))
        assert demoter.run(NOW).counts == {"failed": 1}
        endpoints.reset()
        assert demoter.run(NOW + timedelta(days=3)).counts == {"clean": 1}
        second = models_by_kind(endpoints)
        assert len(endpoints.requests) == 2  # summary + its extraction: the source was cached
        entry = store.get(entry_id)
        assert entry.tier is Tier.WARM
        assert entry.warm is not None
        assert entry.warm.meta.summarizer == f"{provider}:summary-model"
        assert entry.warm.meta.extractor.startswith(f"{provider}:extract-model/")
        calls = store.model_calls(entry_id)
    assert second == {"extract": {"extract-model"}, "summarize": {"summary-model"}}
    by_role = {(n, c.role): c.model for n, c in calls}
    assert by_role[(1, "summarize")] == f"{provider}:summary-model"
    assert by_role[(1, "extract_source")] == f"{provider}:extract-model"
    assert by_role[(2, "extract_summary")] == f"{provider}:extract-model"
    assert (2, "extract_source") not in by_role
    (first_summary,) = [c for n, c in calls if (n, c.role) == (1, "summarize")]
    assert first_summary.http_calls == 2  # the 500, then the answer


@pytest.mark.parametrize("provider", PROVIDERS)
def test_waiting_for_a_provider_slot_is_not_part_of_the_deadline(provider: str) -> None:
    """With one slot and 0.4 s answers, the fourth call waits 1.2 s for its slot: far past
    a 0.6 s deadline that counts from sending, yet every call succeeds."""
    request = ChatRequest("Be terse.", (Message("user", "hi"),), max_tokens=20)
    policy = CallPolicy(deadline_s=0.6, max_attempts=1, backoff_s=0)
    set_provider_limit(provider, 1)
    try:
        with scripted(responder=lambda _r: Answer.text("ok").after(0.4)) as server:
            client = LLMClient(spec(server, provider), policy=policy, prices=PRICES)

            async def four() -> list[str]:
                calls = [run_async(client.acomplete(request)) for _ in range(4)]
                return [r.text for r in await asyncio.gather(*calls)]

            started = time.monotonic()
            assert asyncio.run(four()) == ["ok"] * 4
            assert time.monotonic() - started >= 1.5
            assert server.max_in_flight == 1
            assert server.request_count == 4
    finally:
        set_provider_limit(provider, None)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_deadline_still_cuts_a_slow_answer_after_sending(provider: str) -> None:
    policy = CallPolicy(deadline_s=0.3, max_attempts=1, backoff_s=0)
    with scripted(Answer.text("late").after(5)) as server:
        client = LLMClient(spec(server, provider), policy=policy, prices=PRICES)
        with pytest.raises(DeadlineExceeded, match="counted from the first request"):
            client.complete(ChatRequest("s", (Message("user", "hi"),)))


def test_openai_sends_max_completion_tokens_and_omits_temperature_when_configured() -> None:
    request = ChatRequest("s", (Message("user", "hi"),), max_tokens=77, temperature=0.0)
    params = ModelParams(
        token_param="max_completion_tokens", temperature="omit", extra={"reasoning_effort": "low"}
    )
    with scripted(Answer.text("ok"), Answer.text("ok")) as server:
        LLMClient(spec(server, "openai"), policy=FAST, prices=PRICES, params=params).complete(
            request
        )
        LLMClient(spec(server, "openai"), policy=FAST, prices=PRICES).complete(request)
    tuned, plain = (r.body for r in server.requests)
    assert tuned["max_completion_tokens"] == 77
    assert "max_tokens" not in tuned
    assert "temperature" not in tuned
    assert tuned["reasoning_effort"] == "low"
    assert plain["max_tokens"] == 77  # an OpenAI-compatible endpoint: max_tokens by default
    assert plain["temperature"] == 0


def test_per_model_max_tokens_and_anthropic_temperature() -> None:
    request = ChatRequest("s", (Message("user", "hi"),), max_tokens=50)
    params = ModelParams(max_tokens=321, temperature=0.2)
    with scripted(Answer.text("ok")) as server:
        LLMClient(spec(server, "anthropic"), policy=FAST, prices=PRICES, params=params).complete(
            request
        )
    (body,) = (r.body for r in server.requests)
    assert body["max_tokens"] == 321
    assert body["temperature"] == 0.2


@pytest.mark.parametrize(
    ("message", "param", "code", "fix"),
    [
        (
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "max_tokens",
            "unsupported_parameter",
            "token_param=max_completion_tokens",
        ),
        (
            "Unsupported value: 'temperature' does not support 0 with this model. "
            "Only the default (1) value is supported.",
            "temperature",
            "unsupported_value",
            "temperature=omit",
        ),
    ],
    ids=["max_tokens", "temperature"],
)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_rejected_parameter_is_a_configuration_error_with_a_one_line_fix(
    provider: str, message: str, param: str, code: str, fix: str
) -> None:
    rejected = Answer.error(400, "invalid_request_error", message, code=code)
    with scripted(rejected, Answer.text("never")) as server:
        client = LLMClient(spec(server, provider, "o3-mini"), policy=FAST, prices=PRICES)
        with pytest.raises(ParameterRejected) as caught:
            client.complete(ChatRequest("s", (Message("user", "hi"),)))
    error = caught.value
    assert isinstance(error, ProviderConfigurationError)
    assert error.parameter == param
    assert error.failure_class == "configuration"
    text = str(error)
    assert "\n" not in text
    assert f"--model-param '{provider}:o3-mini:{fix}'" in text
    assert server.request_count == 1  # never retried


def test_model_params_from_flags_env_and_file(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text(
        '[models."openai:o3-mini"]\n'
        'token_param = "max_completion_tokens"\n'
        "max_tokens = 100\n"
        'extra = {reasoning_effort = "high"}\n'
    )
    env = {
        "FACTDIFF_CONFIG": str(path),
        "FACTDIFF_MODEL_PARAMS": '{"openai:o3-mini": {"max_tokens": 200}}',
    }
    settings = resolve_settings(
        None, env, model_params=("openai:o3-mini:temperature=omit", "openai:o3-mini:max_tokens=300")
    )
    chosen = settings.model("openai:o3-mini")
    assert chosen.token_param == "max_completion_tokens"  # file
    assert chosen.max_tokens == 300  # flag over env over file
    assert chosen.temperature == "omit"
    assert chosen.extra == {"reasoning_effort": "high"}
    assert resolve_settings(None, env).model("openai:o3-mini").max_tokens == 200


def test_settings_precedence_for_every_limit(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text('in_flight = 8\ndeadline = "30s"\nrequests_per_call = 2\nmax_tokens = 900\n')
    env = {"FACTDIFF_CONFIG": str(path), "FACTDIFF_DEADLINE": "45s", "FACTDIFF_IN_FLIGHT": "16"}
    settings = resolve_settings({"in_flight": 32}, env)
    assert (settings.in_flight, settings.deadline) == (32, 45.0)
    assert (settings.requests_per_call, settings.max_tokens) == (2, 900)
    retry = DemotionSettings.from_settings(
        resolve_settings({"max_attempts": 5, "provider_error_budget": 4}, {})
    ).retry
    assert isinstance(retry, RetryPolicy)
    assert (retry.max_attempts, retry.provider_error_budget) == (5, 4)
