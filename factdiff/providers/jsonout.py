"""Strict reading of model output: one JSON document, no duplicate keys, no NaN, and a small
validator for the JSON Schema subset that ``factdiff.schema.export.json_schema`` produces.

Partial JSON is never repaired. The one leniency: a reply that is exactly one fenced code
block (```json ... ```) is unwrapped, since nothing is guessed; prose around JSON is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import NoReturn

from factdiff.errors import InvalidOutput, OutputError
from factdiff.inputs.json_toml import JSON, json_objects

__all__ = ["OutputError", "json_object", "loads_strict", "model_ids", "validate"]

_FENCE = re.compile(r"\A\s*```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```\s*\Z", re.S)


def _no_duplicates(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    for key, value in pairs:
        if key in out:
            raise OutputError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constants(name: str) -> NoReturn:
    raise OutputError(f"{name} is not JSON")


def loads_strict(text: str) -> JSON:
    """Parse ``text`` as exactly one JSON document; ``OutputError`` says why not."""
    fenced = _FENCE.match(text)
    body = fenced.group("body") if fenced else text
    try:
        document: JSON = json.loads(
            body, object_pairs_hook=_no_duplicates, parse_constant=_no_constants
        )
        return document
    except OutputError:
        raise
    except (ValueError, RecursionError) as exc:
        raise OutputError(f"not one JSON document: {exc}") from None


def model_ids(body: bytes, name: str) -> list[str]:
    """The ids of a model listing (``{"data": [{"id": ...}, ...]}``, OpenAI and Anthropic)."""
    try:
        listing = loads_strict(body.decode("utf-8"))
    except (OutputError, UnicodeDecodeError) as exc:
        raise InvalidOutput(f"the model listing is not JSON: {exc}", model=name) from None
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        raise InvalidOutput("the model listing has no data list", model=name)
    return [str(item["id"]) for item in data if isinstance(item, dict) and "id" in item]


_TYPES: Mapping[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float),
}


def json_object(value: JSON) -> Mapping[str, JSON]:
    """``value`` when it is a JSON object, else an empty one (a part missing from a reply)."""
    return value if isinstance(value, Mapping) else {}


def validate(instance: JSON, schema: Mapping[str, JSON], path: str = "$") -> list[str]:
    """Errors of ``instance`` against ``schema`` (type, enum, pattern, properties, required,
    additionalProperties, items, anyOf). Empty when valid."""
    if "anyOf" in schema:
        options = [validate(instance, option, path) for option in json_objects(schema["anyOf"])]
        if any(not errors for errors in options):
            return []
        return [f"{path}: matches none of the allowed forms ({'; '.join(options[0])})"]
    errors: list[str] = []
    expected = schema.get("type")
    if isinstance(expected, str):
        kinds = _TYPES.get(expected, ())
        ok = isinstance(instance, kinds) and not (
            expected in ("integer", "number") and isinstance(instance, bool)
        )
        if not ok:
            return [f"{path}: expected {expected}, got {type(instance).__name__}"]
    enum = schema.get("enum")
    if isinstance(enum, list) and instance not in enum:
        errors.append(f"{path}: {instance!r} is not one of {enum!r}")
    pattern = schema.get("pattern")
    if isinstance(instance, str) and isinstance(pattern, str) and not re.search(pattern, instance):
        errors.append(f"{path}: {instance!r} does not match {pattern!r}")
    if isinstance(instance, dict):
        properties = json_object(schema.get("properties", {}))
        required = schema.get("required", ())
        errors.extend(
            f"{path}: missing required key {key!r}"
            for key in (required if isinstance(required, list) else ())
            if key not in instance
        )
        if schema.get("additionalProperties") is False:
            errors.extend(
                f"{path}: unexpected key {key!r}" for key in instance if key not in properties
            )
        for key, sub in properties.items():
            if key in instance and isinstance(sub, Mapping):
                errors.extend(validate(instance[key], sub, f"{path}.{key}"))
    items = schema.get("items")
    if isinstance(instance, list) and isinstance(items, Mapping):
        for index, item in enumerate(instance):
            errors.extend(validate(item, items, f"{path}[{index}]"))
    return errors
