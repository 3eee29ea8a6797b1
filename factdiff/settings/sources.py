"""Where settings come from: the settings file, the environment and ``--model-param``.

Each source gives raw values by key (as the file names them); ``factdiff.settings.resolve``
layers them. Names: the key ``older_than`` is the environment variable
``FACTDIFF_OLDER_THAN`` (``env_name``) and the flag ``--older-than`` (``flag_name``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from factdiff.errors import UsageError
from factdiff.inputs import json_toml
from factdiff.inputs.json_toml import JSON

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_FILE",
    "MODEL_PARAMS_ENV",
    "env_name",
    "flag_name",
    "from_environ",
    "from_model_params",
    "parse_model_param",
    "read_file",
]

CONFIG_ENV = "FACTDIFF_CONFIG"
MODEL_PARAMS_ENV = "FACTDIFF_MODEL_PARAMS"
DEFAULT_FILE = "factdiff.toml"
MODELS_KEY = "models"


def env_name(key: str) -> str:
    """``FACTDIFF_<KEY>`` for a settings key."""
    return f"FACTDIFF_{key.upper()}"


def flag_name(key: str) -> str:
    """``--<key>`` for a settings key."""
    return "--" + key.replace("_", "-")


def read_file(env: Mapping[str, str]) -> tuple[dict[str, object], str]:
    """The values of the settings file (``FACTDIFF_CONFIG``, else ``./factdiff.toml`` if
    there is one) and its path for messages."""
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


def from_environ(env: Mapping[str, str], keys: tuple[str, ...]) -> dict[str, object]:
    """``FACTDIFF_<KEY>`` for each of ``keys`` that is set and not blank, and the per-model
    tables of ``FACTDIFF_MODEL_PARAMS`` (a JSON object) as ``models``."""
    values: dict[str, object] = {}
    for key in keys:
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
        values[MODELS_KEY] = models
    return values


def parse_model_param(assignment: str) -> tuple[str, str, JSON]:
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
        parsed = json_toml.loads(value)
    except ValueError:
        parsed = value
    return model.strip(), key.strip(), parsed


def from_model_params(assignments: tuple[str, ...]) -> dict[str, dict[str, JSON]]:
    """The per-model tables that ``--model-param`` assignments make."""
    tables: dict[str, dict[str, JSON]] = {}
    for assignment in assignments:
        model, key, value = parse_model_param(assignment)
        table = tables.setdefault(model, {})
        if key.startswith("extra."):
            extra = table.get("extra")
            if not isinstance(extra, dict):
                extra = table["extra"] = {}
            extra[key[6:]] = value
        else:
            table[key] = value
    return tables


def merge_models(*layers: object) -> dict[str, dict[str, object]]:
    """Per-model tables layered: a later layer's key wins, ``extra`` tables merge."""
    merged: dict[str, dict[str, object]] = {}
    for layer in layers:
        if not isinstance(layer, Mapping):
            raise UsageError(f"{MODELS_KEY}: expected a table of models")
        for model, values in layer.items():
            if not isinstance(values, Mapping):
                raise UsageError(f"models.{model!r}: expected a table of parameters")
            target = merged.setdefault(str(model), {})
            for key, value in values.items():
                if key == "extra" and isinstance(value, Mapping):
                    before = target.get("extra")
                    target["extra"] = {**(before if isinstance(before, Mapping) else {}), **value}
                else:
                    target[str(key)] = value
    return merged
