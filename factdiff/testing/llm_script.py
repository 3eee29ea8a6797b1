"""The script of ``ScriptedLLMServer``: what it answers (``Answer``) and what it was asked
(``RecordedRequest``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from factdiff.inputs.json_toml import JSON

__all__ = ["Answer", "RecordedRequest"]

Kind = Literal["json", "raw_json", "text", "status", "drop", "trickle", "truncated", "refusal"]


@dataclass(frozen=True)
class Answer:
    """What the server does for one request."""

    kind: Kind
    payload: JSON = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    error_type: str = ""
    error_code: str | None = None
    delay_s: float = 0.0
    tokens_in: int | None = None
    """Reported input tokens; default: the request body's characters / 4."""
    tokens_out: int | None = None
    """Reported output tokens; default: the answer's characters / 4."""
    trickle_interval_s: float = 0.05

    # -- successful answers -------------------------------------------------------------
    @classmethod
    def json(cls, data: JSON, *, delay_s: float = 0.0) -> Answer:
        """Valid structured output: ``data`` serialized as JSON."""
        return cls("json", data, delay_s=delay_s)

    @classmethod
    def raw_json(cls, text: str, *, delay_s: float = 0.0) -> Answer:
        """Structured output given as raw JSON text (duplicate keys, NaN...): sent verbatim."""
        return cls("raw_json", text, delay_s=delay_s)

    @classmethod
    def text(cls, text: str, *, delay_s: float = 0.0) -> Answer:
        """A plain text answer (a summary; or prose or code fences around JSON)."""
        return cls("text", text, delay_s=delay_s)

    # -- failures -----------------------------------------------------------------------
    @classmethod
    def error(
        cls,
        status: int,
        error_type: str,
        message: str = "scripted error",
        *,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        """An HTTP error with a provider-shaped JSON body."""
        return cls(
            "status",
            message,
            status=status,
            headers=dict(headers or {}),
            error_type=error_type,
            error_code=code,
        )

    @classmethod
    def rate_limited(cls, retry_after: float | None = None) -> Answer:
        """429 rate limit, with ``Retry-After`` seconds when given."""
        headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        return cls.error(429, "rate_limit_error", "Rate limit reached", headers=headers)

    @classmethod
    def quota_exhausted(cls) -> Answer:
        """429 ``insufficient_quota`` (OpenAI's out-of-credit answer)."""
        return cls.error(
            429, "insufficient_quota", "You exceeded your current quota", code="insufficient_quota"
        )

    @classmethod
    def server_error(cls, status: int = 500) -> Answer:
        """A 5xx."""
        return cls.error(status, "api_error", "Internal server error")

    @classmethod
    def overloaded(cls) -> Answer:
        """529 overloaded (Anthropic)."""
        return cls.error(529, "overloaded_error", "Overloaded")

    @classmethod
    def context_too_long(cls) -> Answer:
        """400 context length exceeded."""
        return cls.error(
            400,
            "invalid_request_error",
            "prompt is too long: maximum context length exceeded",
            code="context_length_exceeded",
        )

    @classmethod
    def unauthorized(cls) -> Answer:
        """401 bad API key."""
        return cls.error(401, "authentication_error", "invalid x-api-key")

    @classmethod
    def model_not_found(cls) -> Answer:
        """404 unknown model."""
        return cls.error(404, "not_found_error", "model: no-such-model", code="model_not_found")

    @classmethod
    def drop(cls) -> Answer:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def trickle(cls, text: str = "", *, interval_s: float = 0.05) -> Answer:
        """Send headers, then the body one byte every ``interval_s`` (a per-read timeout never
        fires; only an overall deadline stops it)."""
        return cls("trickle", text or "x" * 2000, trickle_interval_s=interval_s)

    @classmethod
    def truncated(cls, partial: str) -> Answer:
        """Output cut at the token limit: ``finish_reason=length`` / ``stop_reason=max_tokens``."""
        return cls("truncated", partial)

    @classmethod
    def refusal(cls, message: str = "I can't help with that.") -> Answer:
        """A refusal: OpenAI ``message.refusal``; Anthropic ``stop_reason=refusal``."""
        return cls("refusal", message)

    def after(self, delay_s: float) -> Answer:
        """This answer after a fixed latency."""
        return replace(self, delay_s=delay_s)

    def with_usage(self, tokens_in: int, tokens_out: int) -> Answer:
        """This answer reporting the given token counts."""
        return replace(self, tokens_in=tokens_in, tokens_out=tokens_out)


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    provider: Literal["openai", "anthropic"]
    path: str
    body: Mapping[str, Any]
    headers: Mapping[str, str]
    """Lower-cased names."""

    @property
    def structured(self) -> bool:
        """Whether the request constrains the output (response_format or tools)."""
        return "response_format" in self.body or "tools" in self.body

    @property
    def prompt(self) -> str:
        """System prompt and every message's text, joined."""
        parts: list[str] = []
        system = self.body.get("system")
        if isinstance(system, str):
            parts.append(system)
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return "\n".join(parts)

    @property
    def last_user_message(self) -> str:
        """The text of the last user message."""
        for message in reversed(list(self.body.get("messages", []))):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                return str(message["content"])
        return ""
