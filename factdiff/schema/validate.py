"""Checks a schema's parts must pass, whichever way it was written (YAML or Python)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from factdiff.errors import SchemaError
from factdiff.inputs.bounds import VERSION_MAX
from factdiff.schema.names import NAME_RULE, SCHEMA_NAME
from factdiff.schema.patterns import compile_pattern
from factdiff.values.base import FactType

if TYPE_CHECKING:
    from factdiff.schema.fields import Criticality, FieldSpec

MAX_FIELDS = 500
MAX_PATTERN_LENGTH = 2_000
MAX_CUES = 100
MAX_ENUM_OPTIONS = 1_000
_VERB = re.compile(r"[A-Za-z]+")
TEMPORAL_TYPES = frozenset({FactType.DATE, FactType.DATETIME, FactType.TIME})
NUMERIC_TYPES = frozenset(
    {FactType.MONEY, FactType.NUMBER, FactType.PERCENT, FactType.QUANTITY, FactType.DURATION}
)
INVENTORY_TYPES: tuple[FactType, ...] = (
    FactType.IDENTIFIER,
    FactType.MONEY,
    FactType.DATE,
    FactType.DATETIME,
    FactType.TIME,
    FactType.DURATION,
    FactType.PHONE,
    FactType.EMAIL,
    FactType.PERCENT,
    FactType.QUANTITY,
    FactType.NUMBER,
    FactType.URL,
    FactType.DECISION,
    FactType.PERSON,
    FactType.ORGANIZATION,
)
"""Types the schema-free inventory can track (each enabled per schema with a criticality)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def validate_parts(
    name: str,
    version: int,
    fields: tuple[FieldSpec, ...],
    inventory: Mapping[FactType, Criticality],
) -> None:
    """Raise ``SchemaError`` naming the first problem found."""
    if not SCHEMA_NAME.fullmatch(name):
        raise SchemaError(f"schema name {name!r} must be {NAME_RULE}")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION_MAX:
        shown = repr(version) if not isinstance(version, int) or version < 10**12 else "more"
        raise SchemaError(f"version must be a positive integer up to {VERSION_MAX}, not {shown}")
    if len(fields) > MAX_FIELDS:
        raise SchemaError(f"{len(fields)} fields is more than the limit of {MAX_FIELDS}")
    seen: set[str] = set()
    for spec in fields:
        if spec.name in seen:
            raise SchemaError("field is defined twice", field=spec.name)
        seen.add(spec.name)
        validate_field(spec)
    for fact_type in inventory:
        if fact_type not in INVENTORY_TYPES:
            allowed = ", ".join(t.value for t in INVENTORY_TYPES)
            raise SchemaError(f"inventory cannot track {fact_type.value!r}; allowed: {allowed}")


def validate_field(spec: FieldSpec) -> None:
    """Raise ``SchemaError`` if one field is inconsistent."""
    if not _NAME.fullmatch(spec.name):
        raise SchemaError("field names are letters, digits and _", field=spec.name)
    if spec.pattern is not None:
        if len(spec.pattern) > MAX_PATTERN_LENGTH:
            raise SchemaError(
                f"pattern longer than {MAX_PATTERN_LENGTH} characters", field=spec.name
            )
        try:
            compiled = re.compile(spec.pattern)
        except re.error as exc:
            raise SchemaError(f"invalid regular expression: {exc}", field=spec.name) from None
        if compiled.groups > 1:
            raise SchemaError("pattern may have at most one capturing group", field=spec.name)
        if compiled.match(""):
            raise SchemaError("pattern matches the empty string", field=spec.name)
        compile_pattern(spec.pattern, spec.name)
    if len(spec.cues) > MAX_CUES:
        raise SchemaError(f"more than {MAX_CUES} cues", field=spec.name)
    if any(not cue.strip() for cue in spec.cues):
        raise SchemaError("cues must be non-empty words", field=spec.name)
    if spec.type is FactType.DECISION and (
        not spec.cues or not all(_VERB.fullmatch(cue.strip()) for cue in spec.cues)
    ):
        raise SchemaError(
            "a decision field needs `cues`: its verbs, one base-form word each "
            "(cues: [refund, reimburse])",
            field=spec.name,
        )
    if spec.type is FactType.ENUM:
        if not spec.options:
            raise SchemaError("an enum field needs `values`", field=spec.name)
        if len(spec.options) > MAX_ENUM_OPTIONS:
            raise SchemaError(f"more than {MAX_ENUM_OPTIONS} enum values", field=spec.name)
    elif spec.options:
        raise SchemaError("`values` is only allowed on enum fields", field=spec.name)
    if spec.tolerance.precision is not None and spec.type not in TEMPORAL_TYPES:
        raise SchemaError("`precision` applies to date, datetime and time fields", field=spec.name)
    numeric_slack = spec.tolerance.absolute is not None or spec.tolerance.relative is not None
    if numeric_slack and spec.type not in NUMERIC_TYPES:
        raise SchemaError("`tolerance` applies to numeric fields", field=spec.name)
    for slack in (spec.tolerance.absolute, spec.tolerance.relative):
        if slack is not None and (not slack.is_finite() or slack < 0):
            raise SchemaError("tolerance must be a finite number >= 0", field=spec.name)
