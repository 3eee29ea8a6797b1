"""The OpenAI chat completions protocol (OpenAI, and OpenAI-compatible servers: Ollama, vLLM,
llama.cpp) through the official ``openai`` SDK, one HTTP request per ``send``."""

from __future__ import annotations

from typing import Any, cast

from factdiff.errors import UsageError
from factdiff.providers.base import ChatRequest, Reply
from factdiff.providers.classify import from_status
from factdiff.providers.errors import (
    InvalidOutput,
    Refused,
    TransientProviderError,
    Truncated,
)
from factdiff.providers.spec import ModelSpec

__all__ = ["OpenAIAdapter"]


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "$schema"}


class OpenAIAdapter:
    """``chat.completions.create`` with ``max_retries=0``; failures become failure classes."""

    def __init__(self, spec: ModelSpec, connect_timeout_s: float) -> None:
        try:
            import openai
        except ImportError:  # pragma: no cover - depends on the install
            raise UsageError("the openai package is missing: pip install 'factdiff[llm]'") from None
        self._openai = openai
        self.spec = spec
        self._connect = connect_timeout_s
        self.client = openai.AsyncOpenAI(
            api_key=spec.api_key,
            base_url=spec.base_url,
            max_retries=0,
            timeout=openai.Timeout(60.0, connect=connect_timeout_s),
        )

    async def aclose(self) -> None:
        """Close the SDK client and its connection pool."""
        await self.client.close()

    async def send(self, request: ChatRequest, timeout_s: float) -> Reply:
        """One ``POST /chat/completions``."""
        messages: list[dict[str, str]] = [{"role": "system", "content": request.system}]
        messages.extend({"role": m.role, "content": m.content} for m in request.messages)
        kwargs: dict[str, Any] = {
            "model": self.spec.model,
            "messages": messages,
            "temperature": request.temperature,
            "timeout": self._openai.Timeout(timeout_s, connect=min(self._connect, timeout_s)),
        }
        if self.spec.base_url is None:
            kwargs["max_completion_tokens"] = request.max_tokens
        else:  # OpenAI-compatible servers know max_tokens
            kwargs["max_tokens"] = request.max_tokens
        if request.output_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": _strict_schema(dict(request.output_schema)),
                    "strict": True,
                },
            }
        try:
            completion = await cast(Any, self.client.chat.completions).create(**kwargs)
        except self._openai.APIStatusError as exc:
            raise from_status(
                exc.status_code,
                exc.body,
                dict(exc.response.headers),
                model=self.spec.name,
                http_calls=1,
            ) from None
        except self._openai.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientProviderError(
                f"connection failed: {type(exc).__name__}: {exc}", model=self.spec.name
            ) from None
        return self._reply(completion)

    def _reply(self, completion: Any) -> Reply:
        usage = getattr(completion, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", None)
        tokens_out = getattr(usage, "completion_tokens", None)
        choices = getattr(completion, "choices", None) or []
        if not choices:
            raise InvalidOutput("the response has no choices", model=self.spec.name)
        choice = choices[0]
        message = choice.message
        name = self.spec.name
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise Refused(f"the model refused: {str(refusal)[:200]}", model=name)
        if choice.finish_reason == "length":
            raise Truncated(
                "the output hit max_tokens (finish_reason=length); the partial output is "
                "discarded: raise max_tokens or shorten the input",
                model=name,
            )
        if choice.finish_reason == "content_filter":
            raise Refused("the output was stopped by the content filter", model=name)
        content = message.content
        if not isinstance(content, str) or not content.strip():
            raise InvalidOutput("the response has no text content", model=name)
        return Reply(content, tokens_in, tokens_out)
