"""The exception tree: control flow branches on these types, ``failure_class`` is data."""

from __future__ import annotations

import pytest

from factdiff import errors
from factdiff.errors import (
    ContextTooLong,
    DeadlineExceeded,
    DemotionPaused,
    FactdiffError,
    InvalidJSON,
    ModelOutputError,
    ParameterRejected,
    ProviderAccountError,
    ProviderConfigurationError,
    ProviderError,
    ProviderUnavailable,
    QuotaExhausted,
    RateLimited,
    Refused,
    RuntimeFailure,
    SchemaViolation,
    StoreError,
    TransientProviderError,
    Truncated,
    UsageError,
    failure_class_of,
    one_line,
)


@pytest.mark.parametrize(
    ("error", "parent", "failure_class"),
    [
        (TransientProviderError, ProviderUnavailable, "transient"),
        (DeadlineExceeded, ProviderUnavailable, "transient"),
        (RateLimited, ProviderUnavailable, "rate_limited"),
        (QuotaExhausted, ProviderAccountError, "quota_exhausted"),
        (ProviderConfigurationError, ProviderAccountError, "configuration"),
        (Truncated, ModelOutputError, "truncated"),
        (Refused, ModelOutputError, "refused"),
        (InvalidJSON, ModelOutputError, "invalid_json"),
        (SchemaViolation, ModelOutputError, "schema_violation"),
        (ContextTooLong, ProviderError, "context_too_long"),
    ],
)
def test_every_provider_failure_has_one_branch_and_a_stable_name(
    error: type[ProviderError], parent: type[ProviderError], failure_class: str
) -> None:
    assert issubclass(error, parent)
    assert issubclass(error, RuntimeFailure)
    assert error.failure_class == failure_class
    branches = (ProviderUnavailable, ProviderAccountError, ModelOutputError, ContextTooLong)
    assert sum(issubclass(error, b) for b in branches) == 1  # branches never overlap


def test_only_unavailability_is_transient() -> None:
    assert TransientProviderError("x").transient
    assert RateLimited("x").transient
    assert not QuotaExhausted("x").transient
    assert not Truncated("x").transient


def test_misuse_and_runtime_branches_are_disjoint() -> None:
    runtime = (StoreError, DemotionPaused, ProviderError)
    assert all(issubclass(e, RuntimeFailure) and not issubclass(e, UsageError) for e in runtime)
    assert issubclass(UsageError, FactdiffError)
    rejected = ParameterRejected("m: no", parameter="max_tokens", model="openai:o3")
    assert isinstance(rejected, ProviderConfigurationError)
    assert rejected.parameter == "max_tokens"


def test_every_error_class_lives_in_errors() -> None:
    for name in dir(errors):
        value = getattr(errors, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert value.__module__ == "factdiff.errors", name


def test_failure_names_and_one_line_messages() -> None:
    assert failure_class_of(RateLimited("slow down")) == "rate_limited"
    assert failure_class_of(KeyError("x")) == "internal"
    assert one_line(ValueError("first\nsecond")) == "ValueError: first"
    assert one_line(RuntimeError()) == "RuntimeError"
    assert len(one_line(ValueError("x" * 900))) == 500
