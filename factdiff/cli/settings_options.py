"""Command-line options for the settings of ``factdiff.settings``, grouped by section.

Every option defaults to unset, so the environment (``FACTDIFF_<KEY>``), the settings file and
the built-in default apply in that order; ``--help`` shows the built-in default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

import click

from factdiff.cli.options import not_blank
from factdiff.settings import (
    DEFAULTS,
    KEYS,
    SECTIONS,
    Settings,
    env_name,
    flag_name,
    resolve_settings,
)

if TYPE_CHECKING:
    pass

F = TypeVar("F", bound=Callable[..., object])

NOT_FLAGS = frozenset({"max_source_bytes", "models"})
"""Keys set only in the settings file or the environment (``--model-param`` sets models)."""


def _flags_of(section: str) -> tuple[str, ...]:
    return tuple(key for key in SECTIONS[section] if key not in NOT_FLAGS)


COMPONENT_KEYS = _flags_of("components")
MODEL_KEYS = _flags_of("models")
DEMOTION_KEYS = _flags_of("demotion")
WORKER_KEYS = _flags_of("worker")

_HELP: Mapping[str, str] = {
    "extractor": "Rules, provider:model or jury:provider:model",
    "summarizer": "Extractive, naive or provider:model for every rung",
    "ladder": "Full retry ladder, e.g. 'extractive:0.35x,openai:gpt-4.1-mini:0.6x:strict'",
    "older_than": "Dormancy threshold",
    "max_attempts": "Verified attempts before operator review",
    "attempt_retention": "Keep all attempts, or none of entries a clean attempt made warm",
    "backoff": "First retry delay after a failed attempt (x4 per failure)",
    "error_backoff": "First retry delay after an error attempt (x2 per error)",
    "error_backoff_max": "Longest retry delay after an error attempt",
    "error_budget": "Model output or internal errors in a row before review",
    "provider_error_budget": "Provider outages in a row before review (provider_unavailable)",
    "concurrency": "Model calls in flight at once",
    "extract_workers": "Processes for the offline extractor and summarizers (0: none)",
    "in_flight": "HTTP requests in flight per provider",
    "deadline": "Deadline of one model call, from its first request",
    "requests_per_call": "HTTP requests per model call, retries included",
    "max_tokens": "Output token budget of the LLM extractor",
    "max_output_tokens": "How far a truncated answer may raise the output budget",
    "llm_http": "HTTP transport under the provider SDKs (auto: aiohttp when installed)",
    "structured_output": "How models are asked for JSON: auto steps down from json_schema "
    "to json_object to prompt as the endpoint refuses a form",
    "lease": "Lease length, e.g. 60s or 5m",
    "heartbeat": "Heartbeat interval",
    "poll": "Wait when nothing is due",
    "grace": "SIGTERM grace period",
    "log_format": "Log lines as text or json",
}
_DEFAULTS: Mapping[str, str] = {
    "ladder": "the summarizer at 35%, 60%, 100%",
    "max_attempts": "one per rung",
    "concurrency": "demote 1, worker 4",
    "extract_workers": "one per core from concurrency 8",
    "in_flight": "no bound",
    "heartbeat": "a third of the lease",
}
_FLAGS = frozenset({"allow_same_model"})
_CHOICES: Mapping[str, tuple[str, ...]] = {
    "log_format": ("text", "json"),
    "attempt_retention": ("all", "warm-clean"),
    "llm_http": ("auto", "aiohttp", "httpx"),
    "structured_output": ("auto", "json_schema", "json_object", "prompt"),
}
_INTEGERS = frozenset(
    key for key, spec in Settings.model_fields.items() if "int" in str(spec.annotation)
)
_UNITS = ((86400, "d"), (3600, "h"), (1, "s"))


def _duration(seconds: float) -> str:
    for size, unit in _UNITS:
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds * 1000:g}ms"


def _default(key: str) -> str:
    if key in _DEFAULTS:
        return _DEFAULTS[key]
    value = getattr(DEFAULTS, key)
    return _duration(value) if isinstance(value, float) else str(value)


def _integer(key: str) -> click.IntRange:
    """The bounds the settings model gives ``key`` (``ge``/``le``), checked by click."""
    low = high = None
    for bound in Settings.model_fields[key].metadata:
        low = getattr(bound, "ge", low)
        high = getattr(bound, "le", high)
    return click.IntRange(low, high)


def setting_options(*keys: str) -> Callable[[F], F]:
    """Options for ``keys`` (settings names), each unset unless given."""

    def decorate(function: F) -> F:
        for key in reversed(keys):
            if key in _FLAGS:
                option = click.option(
                    flag_name(key),
                    key,
                    is_flag=True,
                    default=None,
                    help="Allow the extractor and a summarizer to be the same model.",
                )
            else:
                help_text = f"{_HELP.get(key, key)} (env {env_name(key)}; default {_default(key)})."
                choice = _CHOICES.get(key)
                kind = click.Choice(choice) if choice else None
                option = click.option(
                    flag_name(key),
                    key,
                    default=None,
                    type=_integer(key) if key in _INTEGERS else kind,
                    callback=None if key in _INTEGERS else not_blank,
                    help=help_text,
                )
            function = option(function)
        return function

    return decorate


def model_param_option(function: F) -> F:
    """``--model-param provider:model:key=value`` (repeatable)."""
    return click.option(
        "--model-param",
        "model_params",
        multiple=True,
        help="Per-model parameter, e.g. 'openai:o3-mini:token_param=max_completion_tokens', "
        "'openai:o3-mini:temperature=omit' (repeatable; env FACTDIFF_MODEL_PARAMS).",
    )(function)


def settings_from(options: Mapping[str, object], model_params: tuple[str, ...] = ()) -> Settings:
    """Resolved settings from a command's option values (unset ones fall through)."""
    flags = {k: v for k, v in options.items() if k in KEYS}
    return resolve_settings(flags, model_params=model_params)
