"""Provider failure classes: every way a model call can fail, as one typed error each.

All of them are ``RuntimeFailure`` (the caller's input was fine; something outside failed),
and each says what the caller should do through three attributes:

* ``failure_class``: a stable name for events and attempt records (``transient``,
  ``rate_limited``, ``quota_exhausted``, ``truncated``, ``refused``, ``invalid_json``,
  ``schema_violation``, ``context_too_long``, ``configuration``);
* ``transient``: True when the same call may succeed later unchanged (retry with backoff);
* ``retry_after``: seconds the provider asked us to wait (rate limits), honoured by the job
  backoff, never by a blocking sleep longer than the call's own policy allows.

``http_calls`` is how many HTTP requests the logical call made before it failed.
"""

from __future__ import annotations

from factdiff.errors import RuntimeFailure

__all__ = [
    "ContextTooLong",
    "DeadlineExceeded",
    "InvalidJSON",
    "InvalidOutput",
    "ProviderConfigurationError",
    "ProviderError",
    "QuotaExhausted",
    "RateLimited",
    "Refused",
    "SchemaViolation",
    "TransientProviderError",
    "Truncated",
]


class ProviderError(RuntimeFailure):
    """A model call failed. Subclasses say how; see the module docstring."""

    failure_class = "provider"
    transient = False

    def __init__(
        self,
        message: str,
        *,
        model: str = "",
        http_calls: int = 0,
        retry_after: float | None = None,
        status_code: int | None = None,
    ) -> None:
        self.model = model
        self.http_calls = http_calls
        self.retry_after = retry_after
        self.status_code = status_code
        prefix = f"{model}: " if model else ""
        super().__init__(f"{prefix}{message}")


class TransientProviderError(ProviderError):
    """5xx, 529 overloaded, a dropped connection or a timeout: retry later, unchanged."""

    failure_class = "transient"
    transient = True


class DeadlineExceeded(TransientProviderError):
    """The call's overall deadline passed (a slow trickle, a hung server): retry later."""


class RateLimited(ProviderError):
    """429 rate limit: wait ``retry_after`` seconds (when given) before the next attempt."""

    failure_class = "rate_limited"
    transient = True


class QuotaExhausted(ProviderError):
    """429 ``insufficient_quota``: not transient; pause the worker pool and tell an operator."""

    failure_class = "quota_exhausted"


class Truncated(ProviderError):
    """The output hit the token limit (``finish_reason=length`` / ``stop_reason=max_tokens``).

    The partial output is never parsed or repaired; retrying unchanged would truncate again,
    so the next attempt needs a larger ``max_tokens`` or a shorter input."""

    failure_class = "truncated"


class Refused(ProviderError):
    """The model refused (``message.refusal`` / ``stop_reason=refusal``)."""

    failure_class = "refused"


class InvalidOutput(ProviderError):
    """The model answered, but not with what was asked (after the allowed re-ask)."""

    failure_class = "invalid_output"


class InvalidJSON(InvalidOutput):
    """The answer is not one strict JSON document (prose, partial JSON, duplicate keys, NaN)."""

    failure_class = "invalid_json"


class SchemaViolation(InvalidOutput):
    """The JSON does not match the schema, a value does not parse as its type, or a quote is
    not found in the text (grounding)."""

    failure_class = "schema_violation"


class ContextTooLong(ProviderError):
    """The input does not fit the model's context window: chunk it or use a larger model."""

    failure_class = "context_too_long"


class ProviderConfigurationError(ProviderError):
    """401/403/404: bad key, no access or unknown model. Permanent: stop and fix the setup."""

    failure_class = "configuration"
