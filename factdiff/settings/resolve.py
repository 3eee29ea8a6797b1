"""The one precedence, applied once: flag > environment > settings file > default."""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import ValidationError

from factdiff.errors import UsageError
from factdiff.settings.model import Settings
from factdiff.settings.retrieval import RetrievalSettings
from factdiff.settings.sources import (
    MODEL_PARAMS_ENV,
    MODELS_KEY,
    env_name,
    flag_name,
    from_environ,
    from_model_params,
    merge_models,
    read_file,
)

__all__ = ["KEYS", "load_settings", "resolve_retrieval_settings", "resolve_settings"]

KEYS: tuple[str, ...] = tuple(field.alias or name for name, field in Settings.model_fields.items())
"""Every key, as the settings file names it."""
_SCALAR_KEYS = tuple(key for key in KEYS if key != MODELS_KEY)


def resolve_settings(
    flags: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    model_params: tuple[str, ...] = (),
) -> Settings:
    """The settings: ``flags`` (None values are unset) over the environment over the file
    over the defaults; ``model_params`` are ``--model-param`` assignments. A ``summarizer``
    set at a higher layer than a ``ladder`` replaces that ladder. A bad value is one
    ``UsageError`` line naming where it came from."""
    env = os.environ if environ is None else environ
    file_values, path = read_file(env)
    env_values = from_environ(env, _SCALAR_KEYS)
    flag_values = {k: v for k, v in (flags or {}).items() if v is not None}
    flag_models = from_model_params(model_params)
    origin: dict[str, str] = {key: f"{path}: {key}" for key in file_values}
    origin.update({key: env_name(key) for key in env_values if key != MODELS_KEY})
    if MODELS_KEY in env_values:
        origin[MODELS_KEY] = MODEL_PARAMS_ENV
    origin.update({key: flag_name(key) for key in flag_values})
    if model_params:
        origin[MODELS_KEY] = "--model-param"
    merged: dict[str, object] = {**file_values, **env_values, **flag_values}
    rank = {**dict.fromkeys(file_values, 1), **dict.fromkeys(env_values, 2)}
    rank.update(dict.fromkeys(flag_values, 3))
    if merged.get("ladder") and rank.get("summarizer", 0) > rank.get("ladder", 0):
        merged["ladder"] = None  # a summarizer set closer to the command wins over a ladder
    models = merge_models(
        file_values.get(MODELS_KEY) or {}, env_values.get(MODELS_KEY) or {}, flag_models
    )
    if models:
        merged[MODELS_KEY] = models
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


def resolve_retrieval_settings(
    *,
    promote_after: str | None = None,
    promote_window: str | None = None,
    touch: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> RetrievalSettings:
    """The ``retrieval`` section from flags (as given on the command line; blank is unset),
    environment, file and defaults."""
    flags = {"promote_after": promote_after, "promote_window": promote_window}
    flags["search_touch"] = touch
    given = {k: v for k, v in flags.items() if v is not None and v.strip()}
    return resolve_settings(given, environ).retrieval
