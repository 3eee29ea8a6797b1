"""Structured output that fits the endpoint, through the real SDKs against the scripted server
refusing forms the way real servers do (llama-cpp-python answers ``json_schema`` with a 500)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.components import model_params
from factdiff.errors import (
    ProviderConfigurationError,
    SchemaViolation,
    TransientProviderError,
    Truncated,
    UsageError,
)
from factdiff.extraction.llm import LLMExtractor
from factdiff.providers import ModelParams, runtime
from factdiff.schema.model import FactSchema
from factdiff.settings import resolve_settings
from factdiff.testing import Answer, RecordedRequest, ScriptedLLMServer
from tests.conftest import worked
from tests.integration.llm_helpers import FAST, PRICES, PROVIDERS, scripted, spec, worked_answer

SOURCE = worked("source")


def extractor(server: ScriptedLLMServer, provider: str, mode: str = "auto") -> LLMExtractor:
    params = ModelParams(structured_output=mode)
    return LLMExtractor(spec(server, provider), policy=FAST, prices=PRICES, params=params)


def form_of(request: RecordedRequest) -> str:
    if "tools" in request.body:
        return "tools"
    response_format = request.body.get("response_format")
    return str(response_format["type"]) if isinstance(response_format, dict) else "prompt"


def test_auto_steps_down_from_json_schema_to_json_object_and_remembers(
    customer_service: FactSchema,
) -> None:
    answer = Answer.json(worked_answer())
    with scripted(answer, answer, rejects=("json_schema",)) as server:
        first = extractor(server, "openai").extract(SOURCE, customer_service)
        second = extractor(server, "openai").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == ["json_schema", "json_object", "json_object"]
    assert [f.value.canonical() for f in first.fields["customer_id"]] == ["cust_482"]
    assert first.fields == second.fields
    json_mode = server.requests[1]
    sent = json_mode.body["response_format"]["schema"]
    assert sent["type"] == "object"
    assert "pattern" not in json.dumps(sent)  # llama-cpp-python cannot parse regex grammars
    assert "JSON Schema" in json_mode.body["messages"][0]["content"]


def test_a_refused_form_is_neither_an_outage_nor_a_retry(customer_service: FactSchema) -> None:
    """With three requests per call allowed, the refused form is asked once, not retried as
    a 500 would be, and the call answers."""
    with scripted(Answer.json(worked_answer()), rejects=("json_schema",)) as server:
        client = extractor(server, "openai").client
        request = extractor(server, "openai").request(SOURCE, customer_service, None)
        result = client.complete(request)
    assert result.structured_output == "json_object"
    assert result.http_calls == 2
    assert [form_of(r) for r in server.requests] == ["json_schema", "json_object"]
    assert client.usage.calls == 1


def test_a_form_the_endpoint_answered_in_is_known_though_the_model_ran_out_of_tokens(
    customer_service: FactSchema,
) -> None:
    """A small model can repeat itself until the output budget runs out: the reply is the
    model's failing, but the endpoint accepted the form, so ``models check`` can name it."""
    cut = Answer.truncated('{"customer_id": {"value": "cust_482"}, "notes": "again again')
    with scripted(cut, rejects=("json_schema",)) as server:
        client = extractor(server, "openai").client
        request = extractor(server, "openai").request(SOURCE, customer_service, None)
        request = replace(request, max_tokens=client.output_cap)
        with pytest.raises(Truncated):
            client.complete(request)
        assert client.structured_form == "json_object"
    assert [form_of(r) for r in server.requests] == ["json_schema", "json_object"]


def test_a_500_without_a_word_about_the_form_is_still_an_outage(
    customer_service: FactSchema,
) -> None:
    outage = [Answer.server_error()] * 3
    with scripted(*outage) as server, pytest.raises(TransientProviderError):
        extractor(server, "openai").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == ["json_schema"] * 3


def test_prompt_form_reads_json_out_of_prose_and_code_fences(
    customer_service: FactSchema,
) -> None:
    prose = "Sure! Here are the facts:\n```json\n" + json.dumps(worked_answer()) + "\n```\nDone."
    with scripted(Answer.text(prose), rejects=("json_schema", "json_object")) as server:
        record = extractor(server, "openai").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == ["json_schema", "json_object", "prompt"]
    assert [f.value.canonical() for f in record.fields["invoice_id"]] == ["INV-9182"]
    assert "JSON Schema" in server.requests[-1].body["messages"][0]["content"]


def test_prompt_form_reasks_once_with_the_validation_error(customer_service: FactSchema) -> None:
    broken = worked_answer()
    del broken["customer_id"]
    answers = [
        Answer.text("The record is " + json.dumps(broken)),
        Answer.text(json.dumps(worked_answer())),
    ]
    with scripted(*answers) as server:
        record = extractor(server, "openai", "prompt").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == ["prompt", "prompt"]
    reask = server.requests[1].last_user_message
    assert "missing required key 'customer_id'" in reask
    assert [f.value.canonical() for f in record.fields["customer_id"]] == ["cust_482"]


def test_json_object_answers_are_validated_like_any_other(customer_service: FactSchema) -> None:
    wrong = worked_answer(mood={"value": "calm", "quote": "Acme Corp"})
    answers = [Answer.json(wrong), Answer.json(wrong)]
    with scripted(*answers) as server, pytest.raises(SchemaViolation) as caught:
        extractor(server, "openai", "json_object").extract(SOURCE, customer_service)
    assert "unexpected key 'mood'" in str(caught.value)
    assert [form_of(r) for r in server.requests] == ["json_object", "json_object"]


def test_a_form_set_explicitly_and_refused_is_a_configuration_error_naming_the_endpoint(
    customer_service: FactSchema,
) -> None:
    with scripted(rejects=("json_schema",)) as server:
        with pytest.raises(ProviderConfigurationError) as caught:
            extractor(server, "openai", "json_schema").extract(SOURCE, customer_service)
        url = server.openai_url
    message = str(caught.value)
    assert "openai:test-extractor" in message
    assert url in message
    assert "(json_schema)" in message
    assert "structured_output" in message
    assert len(server.requests) == 1


def test_anthropic_steps_down_from_a_forced_tool_to_the_prompt(
    customer_service: FactSchema,
) -> None:
    with scripted(Answer.text(json.dumps(worked_answer())), rejects=("tools",)) as server:
        record = extractor(server, "anthropic").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == ["tools", "prompt"]
    assert [f.value.canonical() for f in record.fields["credit_memo_id"]] == ["CM-3392"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_json_object_is_refused_for_anthropic_only(provider: str) -> None:
    with scripted() as server:
        if provider == "anthropic":
            with pytest.raises(UsageError, match="json_object"):
                extractor(server, provider, "json_object")
        else:
            assert extractor(server, provider, "json_object").client.params.structured_output


def test_concurrent_first_calls_find_the_form_once(customer_service: FactSchema) -> None:
    def answer(request: RecordedRequest) -> Answer:
        return Answer.json(worked_answer())

    with scripted(rejects=("json_schema",), responder=answer) as server:
        chosen = extractor(server, "openai")

        async def many() -> list[Any]:
            calls = [chosen.aextract(SOURCE, customer_service) for _ in range(4)]
            return await asyncio.gather(*calls)

        records = asyncio.run(many())
    assert len(records) == 4
    assert [form_of(r) for r in server.requests].count("json_schema") == 1
    assert len(server.requests) == 5


def test_the_setting_flag_environment_and_per_model_value() -> None:
    env = {"FACTDIFF_STRUCTURED_OUTPUT": "json_object"}
    assert resolve_settings(None, env).structured_output == "json_object"
    assert resolve_settings({"structured_output": "prompt"}, env).structured_output == "prompt"
    per_model = resolve_settings(
        None, env, model_params=("openai:smollm2:structured_output=prompt",)
    )
    assert model_params("openai:smollm2", per_model.models).structured_output == "prompt"
    assert model_params("openai:other", per_model.models).structured_output == "json_object"
    with pytest.raises(UsageError, match="FACTDIFF_STRUCTURED_OUTPUT"):
        resolve_settings(None, {"FACTDIFF_STRUCTURED_OUTPUT": "xml"})


def test_shutdown_forgets_the_forms_found(customer_service: FactSchema) -> None:
    answer = Answer.json(worked_answer())
    with scripted(answer, answer, rejects=("json_schema",)) as server:
        extractor(server, "openai").extract(SOURCE, customer_service)
        runtime.shutdown()
        extractor(server, "openai").extract(SOURCE, customer_service)
    assert [form_of(r) for r in server.requests] == [
        "json_schema",
        "json_object",
        "json_schema",
        "json_object",
    ]
