"""The LLM extractor and the jury, through the real SDKs against the scripted server."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.extraction.jury import JuryExtractor
from factdiff.extraction.llm import LLMExtractor
from factdiff.providers import CallPolicy, InvalidJSON, SchemaViolation, Truncated
from factdiff.schema.model import FactSchema
from factdiff.testing import Answer
from factdiff.values.base import FactType
from tests.conftest import worked
from tests.integration.llm_helpers import (
    FAST,
    PRICES,
    PROVIDERS,
    TOOL_QUOTE,
    scripted,
    spec,
    v,
    worked_answer,
)

SOURCE = worked("source")


def extractor(server: object, provider: str, policy: CallPolicy = FAST) -> LLMExtractor:
    return LLMExtractor(spec(server, provider), policy=policy, prices=PRICES)  # type: ignore[arg-type]


def canonical(record: object, name: str) -> list[object]:
    return [f.value.canonical() for f in record.fields[name]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_structured_extraction_is_typed_and_grounded(
    provider: str, customer_service: FactSchema
) -> None:
    with scripted(Answer.json(worked_answer())) as server:
        record = extractor(server, provider).extract(SOURCE, customer_service)
    assert server.request_count == 1
    assert canonical(record, "customer_id") == ["cust_482"]
    assert canonical(record, "invoice_total") == ["14250 USD"]
    assert canonical(record, "payment_deadline") == ["2026-03-25"]
    assert canonical(record, "tone") == []
    (tool,) = record.fields["tool_calls"]
    assert tool.value.type is FactType.TOOL_CALL
    assert SOURCE[tool.spans[0][0] : tool.spans[0][1]] == TOOL_QUOTE
    (party,) = record.fields["disputing_party"]
    assert SOURCE[party.spans[0][0] : party.spans[0][1]] == "their CTO Marcus Chen"
    (total,) = record.fields["invoice_total"]
    assert total.text == "totaling $14,250"
    assert record.extractor.startswith(f"{provider}:test-extractor/")
    assert record.reference is not None
    assert record.reference.isoformat() == "2026-03-14"


def test_openai_request_is_strict_json_schema_at_temperature_zero(
    customer_service: FactSchema,
) -> None:
    with scripted(Answer.json(worked_answer())) as server:
        extractor(server, "openai").extract(SOURCE, customer_service)
    body = server.requests[0].body
    assert body["temperature"] == 0
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True
    assert set(fmt["json_schema"]["schema"]["required"]) == {
        s.name for s in customer_service.fields
    }
    assert SOURCE in server.requests[0].prompt


def test_anthropic_request_forces_a_tool_with_the_schema(customer_service: FactSchema) -> None:
    with scripted(Answer.json(worked_answer())) as server:
        extractor(server, "anthropic").extract(SOURCE, customer_service)
    body = server.requests[0].body
    (tool,) = body["tools"]
    assert body["tool_choice"] == {"type": "tool", "name": tool["name"]}
    assert tool["input_schema"]["properties"].keys() == {s.name for s in customer_service.fields}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_quote_not_in_the_text_is_reasked_once_then_fails(
    provider: str, customer_service: FactSchema
) -> None:
    invented = worked_answer(credit_memo_id=v("CM-3393", "credit memo CM-3393"))
    with (
        scripted(Answer.json(invented), Answer.json(invented), Answer.json(invented)) as server,
        pytest.raises(SchemaViolation) as caught,
    ):
        extractor(server, provider).extract(SOURCE, customer_service)
    assert server.request_count == 2  # the answer and one re-ask, never a third
    assert caught.value.http_calls == 2
    assert "not in the text" in str(caught.value)
    reask = server.requests[1]
    assert "credit memo CM-3393" in reask.last_user_message
    assert "rejected" in reask.last_user_message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reask_that_fixes_the_answer_succeeds(
    provider: str, customer_service: FactSchema
) -> None:
    wrong = worked_answer(disputing_party=v("Marcus Chen", "Marcus Chen, CTO"))
    with scripted(Answer.json(wrong), Answer.json(worked_answer())) as server:
        record = extractor(server, provider).extract(SOURCE, customer_service)
    assert canonical(record, "disputing_party") == ["Marcus Chen"]
    assert server.request_count == 2
    if provider == "openai":  # the model sees its own rejected answer
        roles = [m["role"] for m in server.requests[1].body["messages"]]
        assert roles == ["system", "user", "assistant", "user"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_value_that_contradicts_its_quote_is_a_violation(
    provider: str, customer_service: FactSchema
) -> None:
    changed = worked_answer(disputed_amount=v({"amount": "2500", "currency": "USD"}, "$2,400"))
    with (
        scripted(Answer.json(changed), Answer.json(changed)) as server,
        pytest.raises(SchemaViolation, match="differs from its quote"),
    ):
        extractor(server, provider).extract(SOURCE, customer_service)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_off_the_schema_is_a_violation(
    provider: str, customer_service: FactSchema
) -> None:
    extra = worked_answer(sentiment="angry")
    with (
        scripted(Answer.json(extra), Answer.json(extra)) as server,
        pytest.raises(SchemaViolation, match="unexpected key 'sentiment'"),
    ):
        extractor(server, provider).extract(SOURCE, customer_service)
    assert server.request_count == 2


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "raw",
    [
        '{"customer_id": null, "customer_id": {"value": "cust_482", "quote": "cust_482"}}',
        '{"customer_id": {"value": NaN, "quote": "cust_482"}}',
    ],
    ids=["duplicate-keys", "nan"],
)
def test_duplicate_keys_and_nan_are_invalid_json(
    provider: str, raw: str, customer_service: FactSchema
) -> None:
    with (
        scripted(Answer.raw_json(raw), Answer.raw_json(raw)) as server,
        pytest.raises(InvalidJSON) as caught,
    ):
        extractor(server, provider).extract(SOURCE, customer_service)
    assert caught.value.failure_class == "invalid_json"
    assert server.request_count == 2


def test_prose_around_json_is_invalid(customer_service: FactSchema) -> None:
    prose = "Here are the facts:\n" + json.dumps(worked_answer()) + "\nHope this helps!"
    with (
        scripted(Answer.text(prose), Answer.text(prose)) as server,
        pytest.raises(InvalidJSON),
    ):
        extractor(server, "openai").extract(SOURCE, customer_service)
    assert server.request_count == 2


def test_a_reply_that_is_one_code_fence_is_unwrapped(customer_service: FactSchema) -> None:
    fenced = "```json\n" + json.dumps(worked_answer()) + "\n```"
    with scripted(Answer.text(fenced)) as server:
        record = extractor(server, "openai").extract(SOURCE, customer_service)
    assert canonical(record, "credit_memo_id") == ["CM-3392"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_json_is_never_parsed_but_asked_again_with_a_larger_budget(
    provider: str, customer_service: FactSchema
) -> None:
    partial = json.dumps(worked_answer())[:120]
    with scripted(Answer.truncated(partial), Answer.json(worked_answer())) as server:
        record = extractor(server, provider).extract(SOURCE, customer_service)
    assert canonical(record, "customer_id") == ["cust_482"]
    first, second = server.requests
    assert second.body["max_tokens"] == 2 * first.body["max_tokens"]
    assert second.body["messages"] == first.body["messages"]  # not a re-ask: same request


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncation_up_to_the_output_cap_is_a_typed_failure(
    provider: str, customer_service: FactSchema
) -> None:
    policy = CallPolicy(deadline_s=10, max_attempts=3, backoff_s=0, max_output_tokens=10_000)
    partial = json.dumps(worked_answer())[:120]
    with (
        scripted(responder=lambda _r: Answer.truncated(partial)) as server,
        pytest.raises(Truncated),
    ):
        extractor(server, provider, policy).extract(SOURCE, customer_service)
    assert [r.body["max_tokens"] for r in server.requests] == [4096, 8192, 10_000]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_http_calls_per_extraction_are_bounded(provider: str, customer_service: FactSchema) -> None:
    """(1 answer + 1 re-ask) x max_attempts HTTP requests at most."""
    policy = CallPolicy(deadline_s=10, max_attempts=2, backoff_s=0)
    bad = Answer.json(worked_answer(customer_id=v("cust_999", "cust_999")))
    script = [Answer.server_error(500), bad, Answer.overloaded(), bad, bad, bad]
    with (
        scripted(*script) as server,
        pytest.raises(SchemaViolation) as caught,
    ):
        extractor(server, provider, policy).extract(SOURCE, customer_service)
    assert server.request_count == caught.value.http_calls == 4


@pytest.mark.parametrize("provider", PROVIDERS)
def test_jury_merges_rules_and_llm_with_disagreements(
    provider: str, customer_service: FactSchema
) -> None:
    answer = worked_answer(
        invoice_total=None,  # the model missed it: the rules' value stays
        tone=v("cooperative", "Customer agreed to pay"),  # only the model found it
        disputing_party=v("Acme Corp", "Acme Corp"),  # a disagreement with the rules
    )
    with scripted(Answer.json(answer)) as server:
        jury = JuryExtractor(extractor(server, provider))
        result = jury.extract_with_report(SOURCE, customer_service)
    record = result.record
    assert canonical(record, "invoice_total") == ["14250 USD"]
    assert canonical(record, "tone") == ["cooperative"]
    assert set(map(str, canonical(record, "disputing_party"))) == {"Marcus Chen", "Acme Corp"}
    assert [d.field for d in result.disagreements] == ["disputing_party"]
    assert result.disagreements[0].to_json()["llm"] == ["Acme Corp"]
    assert canonical(record, "customer_id") == ["cust_482"]  # both found it: one fact
    assert record.inventory  # the rules' schema-free atoms are kept
    assert record.extractor.startswith("jury(rules/10+")
