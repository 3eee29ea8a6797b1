"""Model specs, prices, strict JSON and the schema validator (no server needed)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from factdiff.errors import QuotaExhausted, RateLimited, TransientProviderError, UsageError
from factdiff.providers import ModelSpec, PriceTable, parse_model_spec
from factdiff.providers.classify import from_connection, from_status, retry_after
from factdiff.providers.jsonout import OutputError, loads_strict, validate
from factdiff.values.base import JSON


def test_model_specs_keep_the_colons_of_their_model() -> None:
    assert parse_model_spec("openai:qwen2.5:7b") == ModelSpec("openai", "qwen2.5:7b")
    assert parse_model_spec("anthropic:claude-sonnet-4-5").name == "anthropic:claude-sonnet-4-5"
    for bad in ("gpt-4", "openai:", "mistral:large"):
        with pytest.raises(UsageError):
            parse_model_spec(bad)


def test_keys_and_base_urls_come_from_the_usual_variables() -> None:
    spec = parse_model_spec("openai:qwen2.5:7b")
    local = spec.resolved({"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    assert local.base_url == "http://127.0.0.1:11434/v1"
    assert local.api_key  # a placeholder: local servers need none
    assert spec.resolved({"OPENAI_API_KEY": "sk-x"}).api_key == "sk-x"
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        spec.resolved({})
    assert "sk-x" not in repr(spec.resolved({"OPENAI_API_KEY": "sk-x"}))


def test_prices_are_per_million_tokens_and_configurable(tmp_path: Path) -> None:
    table = PriceTable()
    assert table.cost("openai:gpt-4.1-mini", 1_000_000, 1_000_000) == Decimal("2.00")
    assert table.cost("openai:unknown", 10, 10) is None
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"openai:mine": {"input": "1", "output": 2}}))
    custom = PriceTable.from_env({"FACTDIFF_PRICES": str(path)})
    assert custom.cost("openai:mine", 500_000, 500_000) == Decimal("1.5")
    with pytest.raises(UsageError):
        PriceTable.from_env({"FACTDIFF_PRICES": str(tmp_path / "missing.json")})


def test_strict_json_refuses_duplicates_nan_and_prose() -> None:
    assert loads_strict('```json\n{"a": 1}\n```') == {"a": 1}
    for bad in ('{"a": 1, "a": 2}', '{"a": NaN}', '{"a": Infinity}', 'Sure: {"a": 1}', '{"a":'):
        with pytest.raises(OutputError):
            loads_strict(bad)


def test_the_validator_reports_paths() -> None:
    schema: dict[str, JSON] = {
        "type": "object",
        "properties": {
            "x": {"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "null"}]},
            "y": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}},
        },
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    assert validate({"x": None, "y": ["p"]}, schema) == []
    errors = validate({"x": "b", "y": ["r"], "z": 1}, schema)
    assert any("$.x" in e for e in errors)
    assert any("$.y[0]" in e for e in errors)
    assert any("'z'" in e for e in errors)


def test_status_classification() -> None:
    quota = {"error": {"type": "insufficient_quota", "code": "insufficient_quota"}}
    assert isinstance(from_status(429, quota, {}, model="m", http_calls=1), QuotaExhausted)
    limited = from_status(429, {}, {"Retry-After": "7"}, model="m", http_calls=1)
    assert isinstance(limited, RateLimited)
    assert limited.retry_after == 7
    assert isinstance(from_status(529, {}, {}, model="m", http_calls=1), TransientProviderError)
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({"retry-after": "soon"}) is None


def test_the_http_transport_setting() -> None:
    from factdiff.errors import UsageError
    from factdiff.providers.transport import transport_name
    from factdiff.settings import resolve_settings

    assert transport_name("HTTPX") == "httpx"
    assert transport_name("auto") in ("aiohttp", "httpx")
    with pytest.raises(UsageError, match="use auto, aiohttp or httpx"):
        transport_name("curl")
    from factdiff.compression.components import call_policy

    settings = resolve_settings({}, environ={"FACTDIFF_LLM_HTTP": "httpx"})
    assert settings.llm_http == "httpx"
    assert call_policy(settings.models).http == "httpx"  # what every model call of a run uses


def test_a_connection_failure_never_shows_the_urls_credentials() -> None:
    refused = ConnectionRefusedError(111, "Connect call failed")
    wrapped = OSError("All connection attempts failed")
    wrapped.__context__ = refused
    error = from_connection(
        wrapped, model="openai:m", url="http://user:s3cret@127.0.0.1:9/v1", timed_out=True
    )
    assert "connection refused by http://127.0.0.1:9/v1" in str(error)
    assert "s3cret" not in str(error)
    assert isinstance(error, TransientProviderError)
    other = from_connection(TimeoutError("slow"), model="m", url="http://h/v1", timed_out=True)
    assert "connection to http://h/v1 timed out" in str(other)
