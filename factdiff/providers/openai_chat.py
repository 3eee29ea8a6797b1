"""The OpenAI chat completions protocol (OpenAI, and OpenAI-compatible servers: Ollama, vLLM,
llama.cpp) through the official ``openai`` SDK, one HTTP request per ``send``.

The model, the name of the output budget (``max_tokens`` or ``max_completion_tokens``), the
temperature and any extra body parameters come with each request (``ModelParams``), so one
SDK client serves every model of an endpoint."""

from __future__ import annotations

from collections.abc import Mapping

from factdiff.errors import (
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

__all__ = ["OpenAIAdapter"]


def _strict_schema(schema: Mapping[str, JSON]) -> dict[str, JSON]:
    return {k: v for k, v in schema.items() if k != "$schema"}


class OpenAIAdapter:
    """``POST /chat/completions`` through the SDK client (``max_retries=0``); failures become
    failure classes.

    The body is plain JSON built here and posted with the client's ``post`` (auth, base URL,
    timeouts and status errors are the SDK's): ``chat.completions.create`` would first walk
    every message through its typed-parameter transform, about half the client CPU of a
    call, and the answer is read once as strict JSON instead of the SDK's response models.
    """

    def __init__(self, spec: ModelSpec, connect_timeout_s: float, http: str = "auto") -> None:
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
            http_client=http_client(openai, http),
        )

    async def aclose(self) -> None:
        """Close the SDK client and its connection pool."""
        await self.client.close()

    async def models(self, timeout_s: float) -> list[str]:
        """The model ids of ``GET /models`` (one request; failures are failure classes)."""
        name = f"{self.spec.provider} endpoint"
        timeout = self._openai.Timeout(timeout_s, connect=min(self._connect, timeout_s))
        try:
            body = await self.client.get("/models", cast_to=bytes, options={"timeout": timeout})
        except self._openai.APIStatusError as exc:
            raise from_status(
                exc.status_code, exc.body, dict(exc.response.headers), model=name, http_calls=1
            ) from None
        except self._openai.APIConnectionError as exc:  # includes APITimeoutError
            timed_out = isinstance(exc, self._openai.APITimeoutError)
            raise from_connection(
                exc, model=name, url=str(self.client.base_url), timed_out=timed_out
            ) from None
        return model_ids(body, name)

    def token_param(self, params: ModelParams) -> str:
        """``max_completion_tokens`` on OpenAI's own API, ``max_tokens`` elsewhere, unless the
        model's parameters say which."""
        if params.token_param is not None:
            return params.token_param
        return "max_completion_tokens" if self.spec.base_url is None else "max_tokens"

    async def send(
        self, model: str, params: ModelParams, request: ChatRequest, timeout_s: float
    ) -> Reply:
        """One ``POST /chat/completions``."""
        messages: list[dict[str, str]] = [{"role": "system", "content": request.system}]
        messages.extend({"role": m.role, "content": m.content} for m in request.messages)
        name = f"{self.spec.provider}:{model}"
        payload: dict[str, object] = {
            "model": model,
            "messages": messages,
            self.token_param(params): request.max_tokens,
        }
        temperature = params.temperature_for(request)
        if temperature is not None:
            payload["temperature"] = temperature
        if request.output_schema is not None:
            response_format = _response_format(request)
            if response_format is not None:
                payload["response_format"] = response_format
        payload.update(params.extra)
        timeout = self._openai.Timeout(timeout_s, connect=min(self._connect, timeout_s))
        try:
            body = await self.client.post(
                "/chat/completions", cast_to=bytes, body=payload, options={"timeout": timeout}
            )
        except self._openai.APIStatusError as exc:
            raise from_status(
                exc.status_code,
                exc.body,
                dict(exc.response.headers),
                model=name,
                http_calls=1,
                form=request.output_form if request.output_schema is not None else None,
            ) from None
        except self._openai.APIConnectionError as exc:  # includes APITimeoutError
            timed_out = isinstance(exc, self._openai.APITimeoutError)
            raise from_connection(
                exc, model=name, url=str(self.client.base_url), timed_out=timed_out
            ) from None
        return _reply(body, name)


def _response_format(request: ChatRequest) -> dict[str, JSON] | None:
    """``response_format`` for the request's output form (``prompt``: none)."""
    assert request.output_schema is not None
    schema = _strict_schema(request.output_schema)
    if request.output_form == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": schema, "strict": True},
        }
    if request.output_form == "json_object":
        return {"type": "json_object", "schema": _without_patterns(schema)}
    return None


def _without_patterns(schema: JSON) -> JSON:
    """``schema`` without ``pattern`` keywords, for JSON mode: llama.cpp's servers turn the
    schema into a grammar, and llama-cpp-python's server cannot parse the grammar of a regex
    with escapes (it stops answering). The structure still constrains the output; patterns
    are checked by the caller's validation."""
    if isinstance(schema, dict):
        return {k: _without_patterns(v) for k, v in schema.items() if k != "pattern"}
    if isinstance(schema, list):
        return [_without_patterns(v) for v in schema]
    return schema


def _reply(body: bytes, name: str) -> Reply:
    """The reply in a chat completion body, read once as strict JSON (the SDK's response
    models are skipped: their construction costs more CPU than the request itself)."""
    try:
        completion = loads_strict(body.decode("utf-8"))
    except (OutputError, UnicodeDecodeError) as exc:
        raise InvalidOutput(f"the response body is not JSON: {exc}", model=name) from None
    if not isinstance(completion, dict):
        raise InvalidOutput("the response body is not a JSON object", model=name)
    usage = json_object(completion.get("usage"))
    tokens_in = _count(usage.get("prompt_tokens"))
    tokens_out = _count(usage.get("completion_tokens"))

    def billed(error: ProviderError) -> ProviderError:
        error.tokens_in, error.tokens_out = tokens_in, tokens_out
        return error

    choices = completion.get("choices") or []
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise billed(InvalidOutput("the response has no choices", model=name))
    choice = choices[0]
    message = json_object(choice.get("message"))
    refusal = message.get("refusal")
    if refusal:
        raise billed(Refused(f"the model refused: {str(refusal)[:200]}", model=name))
    if choice.get("finish_reason") == "length":
        raise billed(
            Truncated(
                "the output hit its token limit (finish_reason=length) even at the largest "
                "allowed budget; the partial output is discarded: raise max_output_tokens for "
                "this model or shorten the entry",
                model=name,
            )
        )
    if choice.get("finish_reason") == "content_filter":
        raise billed(Refused("the output was stopped by the content filter", model=name))
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise billed(InvalidOutput("the response has no text content", model=name))
    return Reply(content, tokens_in, tokens_out)


def _count(value: JSON | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
