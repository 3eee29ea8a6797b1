"""LLM providers: model specs, one client per process, call policy, failure classes, prices.

::

    from factdiff.providers import LLMClient, ChatRequest, Message
    client = LLMClient("openai:gpt-4.1-mini")          # key and base URL from the environment
    result = client.complete(ChatRequest("You are terse.", (Message("user", "Hi"),)))
    result.text, result.tokens_in, result.tokens_out, result.cost_usd, result.http_calls

Failures are typed (the ``ProviderError`` branch of ``factdiff.errors``): unavailable
(transient, rate limited with ``retry_after``, deadline), account (quota, configuration,
rejected parameters), context too long, and model output (truncated, refused, invalid JSON,
schema violation). The SDKs' own retries are off; ``CallPolicy`` bounds the HTTP requests per
logical call and sets an overall deadline; ``ModelParams`` holds a model's own parameters.
"""

from factdiff.errors import (
    ContextTooLong,
    DeadlineExceeded,
    InvalidJSON,
    InvalidOutput,
    ModelOutputError,
    ParameterRejected,
    ProviderAccountError,
    ProviderConfigurationError,
    ProviderError,
    ProviderUnavailable,
    QuotaExhausted,
    RateLimited,
    Refused,
    SchemaViolation,
    TransientProviderError,
    Truncated,
)
from factdiff.providers.base import (
    CallPolicy,
    ChatRequest,
    ChatResult,
    Message,
    ModelCall,
    ModelParams,
    Usage,
)
from factdiff.providers.client import LLMClient
from factdiff.providers.prices import DEFAULT_PRICES, Price, PriceTable
from factdiff.providers.runtime import provider_limit, set_provider_limit, shutdown
from factdiff.providers.spec import ModelSpec, is_model_spec, parse_model_spec

__all__ = [
    "DEFAULT_PRICES",
    "CallPolicy",
    "ChatRequest",
    "ChatResult",
    "ContextTooLong",
    "DeadlineExceeded",
    "InvalidJSON",
    "InvalidOutput",
    "LLMClient",
    "Message",
    "ModelCall",
    "ModelOutputError",
    "ModelParams",
    "ModelSpec",
    "ParameterRejected",
    "Price",
    "PriceTable",
    "ProviderAccountError",
    "ProviderConfigurationError",
    "ProviderError",
    "ProviderUnavailable",
    "QuotaExhausted",
    "RateLimited",
    "Refused",
    "SchemaViolation",
    "TransientProviderError",
    "Truncated",
    "Usage",
    "is_model_spec",
    "parse_model_spec",
    "provider_limit",
    "set_provider_limit",
    "shutdown",
]
