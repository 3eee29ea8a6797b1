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


def _package_exception_classes() -> list[type[Exception]]:
    """Every public exception class defined in a factdiff module."""
    import importlib
    import pkgutil

    import factdiff

    found: dict[str, type[Exception]] = {}
    for info in pkgutil.walk_packages(factdiff.__path__, "factdiff."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and value.__module__ == info.name
                and not name.startswith("_")
            ):
                found[f"{info.name}.{name}"] = value
    return [found[key] for key in sorted(found)]


def test_every_package_exception_is_in_the_tree_and_drawn() -> None:
    classes = _package_exception_classes()
    assert len(classes) >= 30
    drawn = errors.__doc__ or ""
    for error in classes:
        assert issubclass(error, FactdiffError), error.__qualname__
        assert f" {error.__name__}" in drawn, f"{error.__name__} is not drawn in errors.py"


def test_typed_errors_replace_bare_value_errors() -> None:
    from factdiff.errors import ArchiveCorrupt, OutputError
    from factdiff.providers.jsonout import loads_strict
    from factdiff.providers.runtime import set_provider_limit
    from factdiff.store import codec

    with pytest.raises(ArchiveCorrupt, match="does not decompress"):
        codec.unarchive(codec.COLD_CODEC, b"garbage")
    with pytest.raises(OutputError, match="duplicate key"):
        loads_strict('{"a": 1, "a": 2}')
    with pytest.raises(UsageError, match="at least 1"):
        set_provider_limit("openai", 0)
    # still ValueErrors, so code that caught the bare ValueError keeps working
    assert issubclass(ArchiveCorrupt, StoreError)
    assert issubclass(ArchiveCorrupt, ValueError)
    assert issubclass(OutputError, ValueError)
