"""Model specs: ``provider:model`` strings.

``openai:gpt-4.1-mini``, ``anthropic:claude-sonnet-4-5``, ``openai:qwen2.5:7b`` (the model
is everything after the first colon, so Ollama-style tags keep theirs). The base URL and API
key come from the provider's usual variables unless given: ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` and ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY``. A custom base URL
without a key (a local Ollama, vLLM or llama.cpp server) gets a placeholder key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from factdiff.errors import UsageError

__all__ = ["PROVIDERS", "ModelSpec", "is_model_spec", "parse_model_spec"]

PROVIDERS: Mapping[str, tuple[str, str]] = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
}
"""Known providers and their (base URL, API key) environment variables."""

LOCAL_PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class ModelSpec:
    """One model at one provider (and endpoint)."""

    provider: str
    model: str
    base_url: str | None = None
    api_key: str | None = None

    @property
    def name(self) -> str:
        """``provider:model``: the identity recorded with every attempt."""
        return f"{self.provider}:{self.model}"

    def __repr__(self) -> str:
        return f"ModelSpec({self.name!r}, base_url={self.base_url!r})"  # never the key

    def resolved(self, environ: Mapping[str, str] | None = None) -> ModelSpec:
        """This spec with its base URL and key filled from the environment where unset."""
        env = os.environ if environ is None else environ
        url_var, key_var = PROVIDERS[self.provider]
        base_url = self.base_url or env.get(url_var) or None
        api_key = self.api_key or env.get(key_var) or None
        if api_key is None and base_url is not None:
            api_key = LOCAL_PLACEHOLDER_KEY
        if api_key is None:
            raise UsageError(
                f"{self.name}: no API key; set {key_var} (or {url_var} for a local server)"
            )
        return ModelSpec(self.provider, self.model, base_url, api_key)


def is_model_spec(spec: str) -> bool:
    """Whether ``spec`` names a provider (``openai:...``, ``anthropic:...``)."""
    provider, sep, model = spec.strip().partition(":")
    return bool(sep) and provider in PROVIDERS and bool(model)


def parse_model_spec(
    spec: str, *, base_url: str | None = None, api_key: str | None = None
) -> ModelSpec:
    """``provider:model`` -> ``ModelSpec``; a ``UsageError`` names what is wrong."""
    provider, sep, model = spec.strip().partition(":")
    if not sep or not model.strip():
        raise UsageError(f"bad model spec {spec!r}: use provider:model, e.g. openai:gpt-4.1-mini")
    if provider not in PROVIDERS:
        raise UsageError(
            f"unknown provider {provider!r} in {spec!r}; known: {', '.join(PROVIDERS)}"
        )
    return ModelSpec(provider, model.strip(), base_url, api_key)
