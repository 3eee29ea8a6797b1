"""Map an SDK exception or an HTTP status to a failure class."""

from __future__ import annotations

import email.utils
import errno
import math
import time
from collections.abc import Mapping
from typing import TypedDict
from urllib.parse import urlsplit, urlunsplit

from factdiff.errors import (
    ContextTooLong,
    FormRejected,
    ParameterRejected,
    ProviderConfigurationError,
    ProviderError,
    QuotaExhausted,
    RateLimited,
    TransientProviderError,
)
from factdiff.providers.structured import is_form_rejection

_CONTEXT_HINTS = (
    "context_length_exceeded",
    "context length",
    "context window",
    "prompt is too long",
    "maximum context",
    "too many tokens",
)
_QUOTA_HINTS = ("insufficient_quota", "credit balance", "billing")
_PARAMETER_HINTS = ("unsupported parameter", "unsupported value", "not supported", "unsupported_")
_KNOWN_PARAMETERS = ("max_completion_tokens", "max_tokens", "temperature", "top_p")
_PARAMETER_FIXES = {
    "max_tokens": "token_param=max_completion_tokens",
    "max_completion_tokens": "token_param=max_tokens",
    "temperature": "temperature=omit",
}


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000
            if math.isfinite(value) and value >= 0:
                return value
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
        return value if math.isfinite(value) and value >= 0 else None
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        return max(0.0, float(email.utils.mktime_tz(parsed) - time.time()))


def _text_of(body: object) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            parts = [str(inner.get(k, "")) for k in ("type", "code", "message")]
            return " ".join(parts).lower()
        return str(inner).lower()
    return str(body or "").lower()


def rejected_parameter(status: int, body: object, text: str) -> str | None:
    """The request parameter a 400/422 refuses ("Unsupported parameter: 'max_tokens'..."),
    or None when the error is about something else."""
    if status not in (400, 422) or not any(h in text for h in _PARAMETER_HINTS):
        return None
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    named = inner.get("param") if isinstance(inner, Mapping) else None
    if isinstance(named, str) and named:
        return named
    mentioned = [(text.find(name), name) for name in _KNOWN_PARAMETERS if name in text]
    return min(mentioned)[1] if mentioned else None


class _Where(TypedDict):
    """Who answered an HTTP error, for every failure class made of it."""

    model: str
    http_calls: int
    status_code: int


def from_status(
    status: int,
    body: object,
    headers: Mapping[str, str],
    *,
    model: str,
    http_calls: int,
    form: str | None = None,
) -> ProviderError:
    """The failure class of an HTTP error response (``form``: the structured-output form the
    request used, if any, so that an endpoint refusing it is told apart from an outage)."""
    text = _text_of(body)
    kwargs: _Where = {"model": model, "http_calls": http_calls, "status_code": status}
    if status == 429:
        if "insufficient_quota" in text:
            return QuotaExhausted(
                "quota exhausted (429 insufficient_quota): add credit or raise the limit; "
                "pausing is better than burning attempts",
                **kwargs,
            )
        wait = retry_after(headers)
        return RateLimited(
            f"rate limited (429), retry after {wait if wait is not None else 'unknown'} s",
            retry_after=wait,
            **kwargs,
        )
    if status == 402 or (status in (400, 403) and any(h in text for h in _QUOTA_HINTS)):
        return QuotaExhausted(f"quota or billing problem ({status}): {text[:200]}", **kwargs)
    if form is not None and form != "prompt" and is_form_rejection(status, text):
        return FormRejected(
            f"the endpoint refuses structured output as {form} ({status}): {text[:200]}",
            form=form,
            **kwargs,
        )
    parameter = rejected_parameter(status, body, text)
    if parameter is not None:
        fix = _PARAMETER_FIXES.get(parameter, f"extra (remove {parameter!r})")
        return ParameterRejected(
            f"the model rejects the parameter {parameter!r} ({status}): set "
            f"--model-param '{model}:{fix}' (or models.\"{model}\" in factdiff.toml)",
            parameter=parameter,
            **kwargs,
        )
    if status == 413 or (status == 400 and any(h in text for h in _CONTEXT_HINTS)):
        return ContextTooLong(
            f"the input does not fit the model's context ({status}): chunk the entry or use a "
            "model with a larger window",
            **kwargs,
        )
    if status in (401, 403):
        return ProviderConfigurationError(
            f"the provider rejected the credentials ({status}): check the API key", **kwargs
        )
    if status == 404:
        return ProviderConfigurationError(
            f"not found (404): check the model name and the base URL: {text[:200]}", **kwargs
        )
    if status in (408, 409) or status >= 500:
        return TransientProviderError(f"provider error {status}: retry later", **kwargs)
    return ProviderConfigurationError(
        f"the provider refused the request ({status}): {text[:200]}", **kwargs
    )


def from_connection(exc: BaseException, *, model: str, url: str, timed_out: bool) -> ProviderError:
    """The failure class of a request that got no HTTP response (``timed_out``: the SDK
    called it a timeout). A refused connection says so, whatever the SDK called it (its
    aiohttp transport reports a closed port as a connect timeout): nothing listens at ``url``.
    """
    url = _without_userinfo(url)
    if _refused(exc):
        return TransientProviderError(
            f"connection refused by {url}: nothing listens there; start the model server or "
            "check the base URL",
            model=model,
        )
    what = "timed out" if timed_out else "failed"
    return TransientProviderError(
        f"connection to {url} {what}: {type(exc).__name__}: {exc}", model=model
    )


def _without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@`` part (never shown in a message)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _refused(exc: BaseException) -> bool:
    """Whether a refused connection (``ECONNREFUSED``) is among the causes of ``exc``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        if isinstance(current, OSError) and current.errno == errno.ECONNREFUSED:
            return True
        current = current.__cause__ or current.__context__
    return False
