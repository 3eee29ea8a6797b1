"""The Anthropic messages protocol through the official ``anthropic`` SDK, one HTTP request
per ``send``. The anthropic 2.x SDK no longer takes ``temperature`` (current models fix
their sampling), so none is sent. Constrained output is a forced tool whose ``input_schema``
is the schema; the tool input is re-read from the raw body strictly (duplicate keys and NaN
are refused, which the SDK's own JSON parsing would accept silently)."""

from __future__ import annotations

import json
from typing import Any, cast

from factdiff.errors import UsageError
from factdiff.providers.base import ChatRequest, Reply
from factdiff.providers.classify import from_status
from factdiff.providers.errors import (
    ContextTooLong,
    InvalidJSON,
    InvalidOutput,
    Refused,
    TransientProviderError,
    Truncated,
)
from factdiff.providers.jsonout import OutputError, loads_strict
from factdiff.providers.spec import ModelSpec

__all__ = ["AnthropicAdapter"]


class AnthropicAdapter:
    """``messages.create`` with ``max_retries=0``; failures become failure classes."""

    def __init__(self, spec: ModelSpec, connect_timeout_s: float) -> None:
        try:
            import anthropic
        except ImportError:  # pragma: no cover - depends on the install
            raise UsageError(
                "the anthropic package is missing: pip install 'factdiff[llm]'"
            ) from None
        self._anthropic = anthropic
        self.spec = spec
        self._connect = connect_timeout_s
        self.client = anthropic.AsyncAnthropic(
            api_key=spec.api_key,
            base_url=spec.base_url,
            max_retries=0,
            timeout=anthropic.Timeout(60.0, connect=connect_timeout_s),
        )

    async def aclose(self) -> None:
        """Close the SDK client and its connection pool."""
        await self.client.close()

    async def send(self, request: ChatRequest, timeout_s: float) -> Reply:
        """One ``POST /v1/messages``."""
        kwargs: dict[str, Any] = {
            "model": self.spec.model,
            "system": request.system,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
            "timeout": self._anthropic.Timeout(timeout_s, connect=min(self._connect, timeout_s)),
        }
        if request.output_schema is not None:
            kwargs["tools"] = [
                {
                    "name": request.schema_name,
                    "description": "Record the facts found in the text.",
                    "input_schema": dict(request.output_schema),
                }
            ]
            kwargs["tool_choice"] = {"type": "tool", "name": request.schema_name}
        name = self.spec.name
        try:
            raw = await cast(Any, self.client.messages.with_raw_response).create(**kwargs)
            message = await raw.parse()
            body = await raw.text()
        except self._anthropic.APIStatusError as exc:
            raise from_status(
                exc.status_code, exc.body, dict(exc.response.headers), model=name, http_calls=1
            ) from None
        except self._anthropic.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientProviderError(
                f"connection failed: {type(exc).__name__}: {exc}", model=name
            ) from None
        usage = getattr(message, "usage", None)
        tokens_in = getattr(usage, "input_tokens", None)
        tokens_out = getattr(usage, "output_tokens", None)
        stop = getattr(message, "stop_reason", None)
        if stop == "max_tokens":
            raise Truncated(
                "the output hit max_tokens (stop_reason=max_tokens); the partial output is "
                "discarded: raise max_tokens or shorten the input",
                model=name,
            )
        if stop == "refusal":
            raise Refused("the model refused (stop_reason=refusal)", model=name)
        if stop == "model_context_window_exceeded":
            raise ContextTooLong("the input filled the model's context window", model=name)
        if request.output_schema is not None:
            return Reply(self._tool_input(body, request.schema_name), tokens_in, tokens_out)
        texts = [block.text for block in message.content if getattr(block, "type", "") == "text"]
        text = "".join(texts)
        if not text.strip():
            raise InvalidOutput("the response has no text content", model=name)
        return Reply(text, tokens_in, tokens_out)

    def _tool_input(self, body: str, tool: str) -> str:
        name = self.spec.name
        try:
            envelope = loads_strict(body)
        except OutputError as exc:
            raise InvalidJSON(f"the tool input is not strict JSON: {exc}", model=name) from None
        blocks = envelope.get("content") if isinstance(envelope, dict) else None
        for block in blocks if isinstance(blocks, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("name") != tool:
                    raise InvalidOutput(f"the model called tool {block.get('name')!r}", model=name)
                return json.dumps(block.get("input"), ensure_ascii=False)
        raise InvalidOutput(f"the model did not call the {tool!r} tool", model=name)
