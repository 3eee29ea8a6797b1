"""The Anthropic messages protocol through the official ``anthropic`` SDK, one HTTP request
per ``send``. The model comes with each request, so one SDK client serves every model of an
endpoint. The anthropic 2.x SDK no longer takes ``temperature`` (current models fix their
sampling): one is sent only when a model's parameters set it. Constrained output is a
forced tool whose ``input_schema`` is the schema. The raw body is read once, strictly
(duplicate keys and NaN are refused, which the SDK's own JSON parsing would accept silently;
the SDK's response models are skipped, they cost more CPU than the request)."""

from __future__ import annotations

import json

from factdiff.errors import (
    ContextTooLong,
    InvalidJSON,
    InvalidOutput,
    ProviderError,
    Refused,
    Truncated,
    UsageError,
)
from factdiff.inputs.json_toml import JSON
from factdiff.providers.base import ChatRequest, ModelParams, Reply
from factdiff.providers.classify import from_connection, from_status
from factdiff.providers.jsonout import OutputError, json_object, loads_strict, model_ids
from factdiff.providers.spec import ModelSpec
from factdiff.providers.transport import http_client

__all__ = ["AnthropicAdapter"]


class AnthropicAdapter:
    """``POST /v1/messages`` through the SDK client (``max_retries=0``; a plain JSON body
    posted with the client's ``post``, as ``OpenAIAdapter`` does); failures become failure
    classes."""

    def __init__(self, spec: ModelSpec, connect_timeout_s: float, http: str = "auto") -> None:
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
            http_client=http_client(anthropic, http),
        )

    async def aclose(self) -> None:
        """Close the SDK client and its connection pool."""
        await self.client.close()

    async def models(self, timeout_s: float) -> list[str]:
        """The model ids of ``GET /v1/models`` (one request; failures are failure classes)."""
        name = f"{self.spec.provider} endpoint"
        timeout = self._anthropic.Timeout(timeout_s, connect=min(self._connect, timeout_s))
        try:
            body = await self.client.get("/v1/models", cast_to=bytes, options={"timeout": timeout})
        except self._anthropic.APIStatusError as exc:
            raise from_status(
                exc.status_code, exc.body, dict(exc.response.headers), model=name, http_calls=1
            ) from None
        except self._anthropic.APIConnectionError as exc:  # includes APITimeoutError
            timed_out = isinstance(exc, self._anthropic.APITimeoutError)
            raise from_connection(
                exc, model=name, url=str(self.client.base_url), timed_out=timed_out
            ) from None
        return model_ids(body, name)

    async def send(
        self, model: str, params: ModelParams, request: ChatRequest, timeout_s: float
    ) -> Reply:
        """One ``POST /v1/messages``."""
        name = f"{self.spec.provider}:{model}"
        payload: dict[str, object] = {
            "model": model,
            "system": request.system,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
        }
        forced_tool = request.output_schema is not None and request.output_form == "json_schema"
        if forced_tool:
            assert request.output_schema is not None
            payload["tools"] = [
                {
                    "name": request.schema_name,
                    "description": "Record the facts found in the text.",
                    "input_schema": dict(request.output_schema),
                }
            ]
            payload["tool_choice"] = {"type": "tool", "name": request.schema_name}
        payload.update(params.extra)
        if isinstance(params.temperature, int | float):
            payload["temperature"] = float(params.temperature)
        timeout = self._anthropic.Timeout(timeout_s, connect=min(self._connect, timeout_s))
        try:
            raw = await self.client.post(
                "/v1/messages", cast_to=bytes, body=payload, options={"timeout": timeout}
            )
            body = raw.decode("utf-8", errors="replace")
        except self._anthropic.APIStatusError as exc:
            raise from_status(
                exc.status_code,
                exc.body,
                dict(exc.response.headers),
                model=name,
                http_calls=1,
                form=request.output_form if request.output_schema is not None else None,
            ) from None
        except self._anthropic.APIConnectionError as exc:  # includes APITimeoutError
            timed_out = isinstance(exc, self._anthropic.APITimeoutError)
            raise from_connection(
                exc, model=name, url=str(self.client.base_url), timed_out=timed_out
            ) from None
        try:
            message = loads_strict(body)
        except OutputError as exc:  # a tool input is part of the body
            raise InvalidJSON(f"the answer is not strict JSON: {exc}", model=name) from None
        if not isinstance(message, dict):
            raise InvalidOutput("the response body is not a JSON object", model=name)
        usage = json_object(message.get("usage"))
        tokens_in = _count(usage.get("input_tokens"))
        tokens_out = _count(usage.get("output_tokens"))

        def billed(error: ProviderError) -> ProviderError:
            error.tokens_in, error.tokens_out = tokens_in, tokens_out
            return error

        stop = message.get("stop_reason")
        if stop == "max_tokens":
            raise billed(
                Truncated(
                    "the output hit its token limit (stop_reason=max_tokens) even at the "
                    "largest allowed budget; the partial output is discarded: raise "
                    "max_output_tokens for this model or shorten the entry",
                    model=name,
                )
            )
        if stop == "refusal":
            raise billed(Refused("the model refused (stop_reason=refusal)", model=name))
        if stop == "model_context_window_exceeded":
            raise billed(
                ContextTooLong(
                    "the input filled the model's context window: split the entry or use a "
                    "model with a larger window",
                    model=name,
                )
            )
        try:
            blocks = message.get("content")
            blocks = blocks if isinstance(blocks, list) else []
            if forced_tool:
                text = self._tool_input(blocks, request.schema_name, name)
            else:
                text = "".join(
                    str(b.get("text", ""))
                    for b in blocks
                    if isinstance(b, dict) and b.get("type") == "text"
                )
                if not text.strip():
                    raise InvalidOutput("the response has no text content", model=name)
        except ProviderError as exc:
            raise billed(exc) from None
        return Reply(text, tokens_in, tokens_out)

    @staticmethod
    def _tool_input(blocks: list[JSON], tool: str, name: str) -> str:
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("name") != tool:
                    raise InvalidOutput(f"the model called tool {block.get('name')!r}", model=name)
                return json.dumps(block.get("input"), ensure_ascii=False)
        raise InvalidOutput(f"the model did not call the {tool!r} tool", model=name)


def _count(value: JSON | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
