"""Every setting in one place, with one precedence: flag > environment > settings file > default.

The settings file is ``factdiff.toml`` in the working directory, or the file named by
``FACTDIFF_CONFIG``; each key below is also the environment variable ``FACTDIFF_<KEY>``
(upper case) and, for the commands that use it, the flag ``--<key>`` (dashes)::

    extractor = "jury:openai:gpt-4.1-mini"   # components (factdiff.compression.components)
    summarizer = "anthropic:claude-sonnet-4-5"
    ladder = "extractive:0.35x,anthropic:claude-sonnet-4-5:0.6x:strict"
    allow_same_model = false
    older_than = "14d"         # demotion: dormancy, retries and budgets
    max_attempts = 3           # verified attempts before review (default: one per rung)
    attempt_retention = "all"  # or "warm-clean": drop the attempts of clean warm entries
    backoff = "1h"             # after a failed attempt n: backoff x 4^(n-1), at most 2 days
    error_backoff = "1m"       # after an error attempt n: error_backoff x 2^(n-1) ...
    error_backoff_max = "1h"   # ... at most this; a provider's Retry-After comes first
    provider_error_budget = 8  # provider outages in a row before review (provider_unavailable)
    error_budget = 3           # other errors in a row (model output, internal) before review
    concurrency = 8            # entries in flight (demote: 1, worker: 4 when unset)
    extract_workers = 2        # processes for offline extraction when concurrency > 1
    in_flight = 64             # HTTP requests in flight per provider (default: no bound)
    deadline = "120s"          # one model call, from its first request
    requests_per_call = 3      # HTTP requests per model call (retries included)
    max_tokens = 4096          # the LLM extractor's output budget
    max_output_tokens = 16384  # how far a truncated answer may raise the budget
    llm_http = "auto"          # HTTP under the provider SDKs: aiohttp, httpx or auto
    structured_output = "auto" # auto, json_schema, json_object or prompt (per model too)
    lease = "60s"              # workers
    heartbeat = "20s"
    poll = "1s"
    grace = "30s"
    log_format = "text"        # or "json"
    promote_after = 3           # retrieval: fetches of a warm source that send it back hot
    promote_window = "7d"       #   ... counted over this window ("never" turns it off)
    search_touch = "hits"       # what a search marks as used: hits, top or none

    [models."openai:o3-mini"]  # per-model parameters (factdiff.providers.ModelParams)
    token_param = "max_completion_tokens"
    temperature = "omit"
    extra = {reasoning_effort = "low"}

    [models."openai:smollm2"]  # a local llama.cpp server: no json_schema, JSON mode works
    structured_output = "json_object"

Per-model parameters also come from ``FACTDIFF_MODEL_PARAMS`` (a JSON object of the same
shape) and from ``--model-param 'provider:model:key=value'`` (repeatable; ``extra.NAME=VALUE``
for extra parameters). Durations are ``500ms``, ``30s``, ``5m``, ``1h30m``, ``14d``, ``2w``
or a number of seconds, at most ``MAX_DURATION`` (36500 days: ``factdiff.inputs.times``).
A bad value is one line naming where it came from.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from factdiff.errors import UsageError
from factdiff.inputs import json_toml
from factdiff.inputs.bounds import BYTES_MAX, CONCURRENCY_MAX, COUNT_MAX, PROCESSES_MAX
from factdiff.inputs.times import MAX_DURATION

__all__ = [
    "CONFIG_ENV",
    "DEFAULTS",
    "ModelSettings",
    "Settings",
    "env_name",
    "flag_name",
    "load_settings",
    "parse_duration",
    "parse_model_param",
    "resolve_settings",
]

CONFIG_ENV = "FACTDIFF_CONFIG"
MODEL_PARAMS_ENV = "FACTDIFF_MODEL_PARAMS"
DEFAULT_FILE = "factdiff.toml"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|w|d|h|m|s)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_TOO_LONG = "longer than the longest duration factdiff takes, 36500d"


def parse_duration(value: str | float | int | timedelta) -> float:
    """Seconds from ``500ms``, ``30s``, ``1h30m``, ``14d``, ``2w``, a number or a timedelta;
    ``ValueError`` for anything else, negative, or longer than ``MAX_DURATION``."""
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    elif isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:  # an int beyond any float
            raise ValueError(f"{_shown(value)} is {_TOO_LONG}") from None
    else:
        cleaned = value.strip().lower().replace(" ", "")
        parts = _DURATION.findall(cleaned)
        if not parts or "".join(a + u for a, u in parts) != cleaned:
            try:
                seconds = float(cleaned)
            except ValueError:
                raise ValueError(
                    f"{value!r} is not a duration like 500ms, 30s, 12h, 14d or 2w"
                ) from None
        else:
            seconds = sum(float(amount) * _UNITS[unit] for amount, unit in parts)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"{_shown(value)} is not a duration like 500ms, 30s, 12h, 14d or 2w")
    if seconds > MAX_DURATION:
        raise ValueError(f"{_shown(value)} is {_TOO_LONG}")
    return seconds


def _shown(value: object) -> str:
    """``value`` for a message, cut short when it is long."""
    if isinstance(value, int) and abs(value) >= 10**40:
        return "a number of over 40 digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


Seconds = Annotated[float, BeforeValidator(parse_duration)]


def _positive(seconds: float) -> float:
    if seconds <= 0:
        raise ValueError("must be longer than zero")
    return seconds


PositiveSeconds = Annotated[float, BeforeValidator(parse_duration), AfterValidator(_positive)]


StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]
"""How a model is asked for JSON (``factdiff.providers.structured``)."""


class ModelSettings(BaseModel):
    """Parameters of one model (see ``factdiff.providers.ModelParams``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    token_param: Literal["max_tokens", "max_completion_tokens"] | None = None
    temperature: float | Literal["omit"] | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    max_output_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    structured_output: StructuredOutput | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class Settings(BaseModel):
    """Every setting with its default (see the module docstring); unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: str = "rules"
    summarizer: str = "extractive"
    ladder: str | None = None
    allow_same_model: bool = False
    promote_after: int | str | None = None
    promote_window: str | None = None
    search_touch: str | None = None

    older_than: Seconds = 14 * 86400.0
    max_attempts: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    attempt_retention: Literal["all", "warm-clean"] = "all"
    backoff: PositiveSeconds = 3600.0
    error_backoff: PositiveSeconds = 60.0
    error_backoff_max: PositiveSeconds = 3600.0
    provider_error_budget: int = Field(default=8, ge=1, le=COUNT_MAX)
    error_budget: int = Field(default=3, ge=1, le=COUNT_MAX)
    max_source_bytes: int = Field(default=1_048_576, ge=1, le=BYTES_MAX)
    concurrency: int | None = Field(default=None, ge=1, le=CONCURRENCY_MAX)
    extract_workers: int | None = Field(default=None, ge=0, le=PROCESSES_MAX)

    in_flight: int | None = Field(default=None, ge=1, le=CONCURRENCY_MAX)
    deadline: PositiveSeconds = 120.0
    requests_per_call: int = Field(default=3, ge=1, le=COUNT_MAX)
    max_tokens: int = Field(default=4096, ge=1, le=COUNT_MAX)
    max_output_tokens: int = Field(default=16384, ge=1, le=COUNT_MAX)
    llm_http: Literal["auto", "aiohttp", "httpx"] = "auto"
    structured_output: StructuredOutput = "auto"
    models: dict[str, ModelSettings] = Field(default_factory=dict)

    lease: PositiveSeconds = 60.0
    heartbeat: PositiveSeconds | None = None
    poll: PositiveSeconds = 1.0
    grace: Seconds = 30.0
    log_format: Literal["text", "json"] = "text"

    @model_validator(mode="after")
    def _heartbeat_below_lease(self) -> Settings:
        if self.heartbeat is not None and self.heartbeat >= self.lease:
            raise ValueError(
                f"heartbeat ({self.heartbeat:g}s) must be shorter than lease ({self.lease:g}s)"
            )
        if self.heartbeat_every >= self.lease:
            raise ValueError(
                f"lease ({self.lease:g}s) is too short for its heartbeat (a third of the "
                "lease, at least 50ms): give a longer lease"
            )
        return self

    @property
    def heartbeat_every(self) -> float:
        """Seconds between heartbeats: ``heartbeat``, else a third of the lease."""
        return self.heartbeat if self.heartbeat is not None else max(0.05, self.lease / 3)

    def model(self, name: str) -> ModelSettings:
        """The parameters of ``provider:model`` (defaults when none are set)."""
        return self.models.get(name) or ModelSettings()


DEFAULTS = Settings()
"""Every default, in one object: code that needs a default reads it from here."""


def env_name(key: str) -> str:
    """``FACTDIFF_<KEY>`` for a settings key."""
    return f"FACTDIFF_{key.upper()}"


def flag_name(key: str) -> str:
    """``--<key>`` for a settings key."""
    return "--" + key.replace("_", "-")


def _read_file(env: Mapping[str, str]) -> tuple[dict[str, Any], str]:
    named = env.get(CONFIG_ENV, "").strip()
    path = Path(named) if named else Path(DEFAULT_FILE)
    if not named and not path.is_file():
        return {}, str(path)
    try:
        return json_toml.loads_toml(path.read_text(encoding="utf-8")), str(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read settings: {exc.strerror or exc}") from None
    except (json_toml.UnreadableText, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    except ValueError:  # a number too long for Python to read (over 4300 digits)
        raise UsageError(f"{path}: invalid TOML: a number too long to read") from None


def _from_environ(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in Settings.model_fields:
        if key == "models":
            continue
        raw = env.get(env_name(key), "").strip()
        if raw:
            values[key] = raw
    raw_models = env.get(MODEL_PARAMS_ENV, "").strip()
    if raw_models:
        try:
            models = json_toml.loads(raw_models)
        except ValueError as exc:
            raise UsageError(f"{MODEL_PARAMS_ENV}: not a JSON object: {exc}") from None
        if not isinstance(models, dict):
            raise UsageError(f"{MODEL_PARAMS_ENV}: expected a JSON object of models")
        values["models"] = models
    return values


def parse_model_param(assignment: str) -> tuple[str, str, Any]:
    """``provider:model:key=value`` -> (model, key, value); ``extra.NAME=VALUE`` keys go to
    ``extra``. Values are read as JSON when they parse (numbers, true), else as text."""
    target, sep, value = assignment.partition("=")
    model, colon, key = target.rpartition(":")
    if not sep or not colon or not model or not key.strip():
        raise UsageError(
            f"--model-param {assignment!r}: use provider:model:key=value, "
            "e.g. openai:o3-mini:token_param=max_completion_tokens"
        )
    try:
        parsed: Any = json_toml.loads(value)
    except ValueError:
        parsed = value
    return model.strip(), key.strip(), parsed


def _merge_models(*layers: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for layer in layers:
        for model, values in layer.items():
            if not isinstance(values, Mapping):
                raise UsageError(f"models.{model!r}: expected a table of parameters")
            target = merged.setdefault(str(model), {})
            for key, value in values.items():
                if key == "extra" and isinstance(value, Mapping):
                    target["extra"] = {**target.get("extra", {}), **value}
                else:
                    target[str(key)] = value
    return merged


def resolve_settings(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    model_params: tuple[str, ...] = (),
) -> Settings:
    """The settings: ``flags`` (None values are unset) over the environment over the file
    over the defaults; ``model_params`` are ``--model-param`` assignments. A ``summarizer``
    set at a higher layer than a ``ladder`` replaces that ladder."""
    env = os.environ if environ is None else environ
    file_values, path = _read_file(env)
    env_values = _from_environ(env)
    flag_values = {k: v for k, v in (flags or {}).items() if v is not None}
    origin: dict[str, str] = {}
    for key in file_values:
        origin[key] = f"{path}: {key}"
    for key in env_values:
        origin[key] = env_name(key) if key != "models" else MODEL_PARAMS_ENV
    for key in flag_values:
        origin[key] = flag_name(key)
    flag_models: dict[str, dict[str, Any]] = {}
    for assignment in model_params:
        model, key, value = parse_model_param(assignment)
        if key.startswith("extra."):
            flag_models.setdefault(model, {}).setdefault("extra", {})[key[6:]] = value
        else:
            flag_models.setdefault(model, {})[key] = value
        origin["models"] = "--model-param"
    merged: dict[str, Any] = {**file_values, **env_values, **flag_values}
    rank = {**dict.fromkeys(file_values, 1), **dict.fromkeys(env_values, 2)}
    rank.update(dict.fromkeys(flag_values, 3))
    if merged.get("ladder") and rank.get("summarizer", 0) > rank.get("ladder", 0):
        merged["ladder"] = None  # a summarizer set closer to the command wins over a ladder
    models = _merge_models(
        file_values.get("models") or {}, env_values.get("models") or {}, flag_models
    )
    if models:
        merged["models"] = models
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error["loc"] else ""
        where = origin.get(key, key or "settings")
        rest = ".".join(str(p) for p in error["loc"][1:])
        detail = str(error["msg"]).removeprefix("Value error, ")
        raise UsageError(f"{where}{'.' + rest if rest else ''}: {detail}") from None


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings file over the defaults (no flags; environment variables included)."""
    return resolve_settings(None, environ)
