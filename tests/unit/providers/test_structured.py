"""Structured-output forms: which to try, what a refusal looks like, JSON out of prose."""

from __future__ import annotations

import json

import pytest

from factdiff.errors import ContextTooLong, FormRejected, TransientProviderError, UsageError
from factdiff.providers import structured
from factdiff.providers.base import ChatRequest, Message
from factdiff.providers.classify import from_status
from factdiff.values.base import JSON

SCHEMA: dict[str, JSON] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": ["a"],
    "additionalProperties": False,
}


def test_auto_tries_the_strict_form_first_and_a_set_form_alone() -> None:
    assert structured.forms_for("openai", "auto") == ("json_schema", "json_object", "prompt")
    assert structured.forms_for("anthropic", "auto") == ("json_schema", "prompt")
    assert structured.forms_for("openai", "prompt") == ("prompt",)
    with pytest.raises(UsageError, match="auto, json_schema, prompt"):
        structured.forms_for("anthropic", "json_object")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "x"}', '{"a": "x"}'),
        ('```json\n{"a": "x"}\n```', '```json\n{"a": "x"}\n```'),
        ('Here you go:\n```json\n{"a": "x"}\n```\nAnything else?', '{"a": "x"}'),
        ('Sure. {"a": "x"} Hope that helps {"b": 1}', '{"a": "x"}'),
        ('The set {a, b} and then {"a": "y"}', '{"a": "y"}'),
        ("no JSON here", "no JSON here"),
        ('dup {"a": "x", "a": "y"}', 'dup {"a": "x", "a": "y"}'),
        ('cut {"a": "x"', 'cut {"a": "x"'),
    ],
)
def test_extract_json_finds_the_document_or_leaves_the_text(text: str, expected: str) -> None:
    assert structured.extract_json(text) == expected


def test_the_schema_goes_into_the_instructions_unless_the_wire_carries_it_strictly() -> None:
    request = ChatRequest("Extract.", (Message("user", "t"),), output_schema=SCHEMA)
    strict = structured.shaped(request, "json_schema")
    assert strict.system == "Extract."
    assert strict.output_form == "json_schema"
    for form in ("json_object", "prompt"):
        loose = structured.shaped(request, form)
        assert loose.output_form == form
        assert loose.system.startswith("Extract.\n\nAnswer with exactly one JSON object")
        shown = json.loads(loose.system.split("JSON Schema:\n", 1)[1])
        assert "$schema" not in shown
        assert shown["required"] == ["a"]
    plain = ChatRequest("Summarize.", (Message("user", "t"),))
    assert structured.shaped(plain, "prompt") is plain


LLAMA_CPP = {
    "error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def test_a_refused_form_whatever_the_status_is_told_apart_from_an_outage() -> None:
    refused = from_status(500, LLAMA_CPP, {}, model="openai:m", http_calls=1, form="json_schema")
    assert isinstance(refused, FormRejected)
    assert refused.form == "json_schema"
    for status in (400, 422, 501):
        body = {"error": {"message": "response_format json_schema is not supported"}}
        got = from_status(status, body, {}, model="openai:m", http_calls=1, form="json_schema")
        assert isinstance(got, FormRejected)
    outage = from_status(500, {"error": {"message": "boom"}}, {}, model="m", http_calls=1)
    assert isinstance(outage, TransientProviderError)
    plain = from_status(500, LLAMA_CPP, {}, model="openai:m", http_calls=1, form=None)
    assert isinstance(plain, TransientProviderError)
    prompt = from_status(500, LLAMA_CPP, {}, model="openai:m", http_calls=1, form="prompt")
    assert isinstance(prompt, TransientProviderError)
    rate = from_status(429, LLAMA_CPP, {}, model="openai:m", http_calls=1, form="json_schema")
    assert not isinstance(rate, FormRejected)
    context = {"error": {"message": "prompt is too long", "code": "context_length_exceeded"}}
    too_long = from_status(400, context, {}, model="openai:m", http_calls=1, form="json_schema")
    assert isinstance(too_long, ContextTooLong)


def test_the_form_found_is_remembered_until_forgotten() -> None:
    key = ("openai", "http://127.0.0.1:1/v1", "m", "auto")
    assert structured.known(key) is None
    structured.remember(key, "json_object")
    assert structured.known(key) == "json_object"
    structured.forget()
    assert structured.known(key) is None


def test_none_accepted_names_the_endpoint_model_and_forms() -> None:
    error = structured.none_accepted(
        "openai:m", "http://127.0.0.1:9/v1", ["json_schema"], "refused", model="openai:m"
    )
    text = str(error)
    assert "openai:m at http://127.0.0.1:9/v1" in text
    assert "(json_schema)" in text
    assert "structured_output=prompt" in text
