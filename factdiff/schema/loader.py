"""Load fact schemas from YAML files or plain dicts, with errors that name file, line, field."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdiff.errors import SchemaError
from factdiff.inputs.bounds import VERSION_MAX
from factdiff.inputs.json_toml import JSON, json_array, json_object
from factdiff.schema.model import (
    Criticality,
    EnumOption,
    FactSchema,
    FieldSpec,
)
from factdiff.schema.yaml_loader import Path as YamlPath
from factdiff.schema.yaml_loader import YamlDocument, read_yaml
from factdiff.values.base import FactType, Precision, Tolerance


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToleranceDoc(_Strict):
    """``tolerance: {absolute: 0.01, relative: 0.001}``."""

    absolute: Decimal | None = Field(default=None, ge=0, allow_inf_nan=False)
    relative: Decimal | None = Field(default=None, ge=0, allow_inf_nan=False)


class FieldDoc(_Strict):
    """One field as written in YAML."""

    type: FactType
    criticality: Criticality
    many: bool = False
    description: str = ""
    pattern: str | None = None
    cues: list[str] = Field(default_factory=list)
    precision: Precision | None = None
    tolerance: Decimal | ToleranceDoc | None = Field(default=None)
    values: list[str] | dict[str, list[str] | None] | None = None

    @field_validator("tolerance", mode="before")
    @classmethod
    def _number_is_absolute(cls, value: object) -> object:
        if isinstance(value, bool):
            raise ValueError("tolerance must be a number or a mapping")
        if isinstance(value, int | float):
            return Decimal(str(value))
        return value

    def to_spec(self, name: str) -> FieldSpec:
        """The frozen field spec."""
        if isinstance(self.tolerance, ToleranceDoc):
            tolerance = Tolerance(self.tolerance.absolute, self.tolerance.relative, self.precision)
        else:
            tolerance = Tolerance(absolute=self.tolerance, precision=self.precision)
        return FieldSpec(
            name=name,
            type=self.type,
            criticality=self.criticality,
            many=self.many,
            description=self.description,
            pattern=self.pattern,
            cues=tuple(self.cues),
            tolerance=tolerance,
            options=_options(self.values),
        )


def _options(values: list[str] | dict[str, list[str] | None] | None) -> tuple[EnumOption, ...]:
    if values is None:
        return ()
    if isinstance(values, list):
        return tuple(EnumOption(str(v)) for v in values)
    return tuple(EnumOption(str(k), tuple(str(s) for s in (v or []))) for k, v in values.items())


class SchemaDoc(_Strict):
    """A whole schema file as written."""

    schema_name: str = Field(alias="schema")
    version: int = Field(strict=True, ge=1, le=VERSION_MAX)
    description: str = ""
    inventory: dict[FactType, Criticality] = Field(default_factory=dict)
    fields: dict[str, FieldDoc] = Field(default_factory=dict)


def schema_from_dict(
    data: object, source: str = "<dict>", document: YamlDocument | None = None
) -> FactSchema:
    """Validate a plain-data schema and build it; ``SchemaError`` names the offending place."""
    if not isinstance(data, dict):
        raise SchemaError(
            "a schema is a mapping with `schema`, `version` and `fields`", source=source
        )
    try:
        doc = SchemaDoc.model_validate(data)
    except ValidationError as exc:
        raise _schema_error(exc, source, document) from None
    specs: list[FieldSpec] = []
    for name, field_doc in doc.fields.items():
        try:
            specs.append(field_doc.to_spec(name))
        except ValueError as exc:
            raise _located(str(exc), source, document, ("fields", name), name) from None
    try:
        return FactSchema.build(
            name=doc.schema_name,
            version=doc.version,
            description=doc.description,
            fields=specs,
            inventory=doc.inventory,
        )
    except SchemaError as exc:
        path: YamlPath = ("fields", exc.field) if exc.field else ()
        message = str(exc).split(": ", 1)[-1] if exc.field else str(exc).removeprefix("<schema>: ")
        raise _located(message, source, document, path, exc.field) from None


def load_schema(path: str | Path) -> FactSchema:
    """Load a YAML fact schema from ``path``."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise SchemaError(
            f"cannot read schema file: {exc.strerror or exc}", source=source
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"not UTF-8 (byte {exc.start})", source=source) from None
    return schema_from_yaml(text, source)


def schema_from_yaml(text: str, source: str = "<yaml>") -> FactSchema:
    """Load a fact schema from YAML text."""
    document = read_yaml(text, source)
    return schema_from_dict(document.data, source, document)


def _schema_error(exc: ValidationError, source: str, document: YamlDocument | None) -> SchemaError:
    error = exc.errors()[0]
    loc: YamlPath = tuple(error["loc"])
    field_name = str(loc[1]) if len(loc) >= 2 and loc[0] == "fields" else None
    key = str(loc[-1]) if loc else ""
    if error["type"] == "extra_forbidden":
        message = f"unknown key {key!r}"
    elif error["type"] == "missing":
        message = f"missing required key {key!r}"
    else:
        message = f"{'.'.join(str(p) for p in loc)}: {error['msg']}"
        if "input" in error and not isinstance(error["input"], dict | list):
            message += f" (got {error['input']!r})"
    return _located(message, source, document, loc, field_name)


def _located(
    message: str,
    source: str,
    document: YamlDocument | None,
    path: YamlPath,
    field_name: str | None,
) -> SchemaError:
    line = document.line_of(path) if document is not None else None
    return SchemaError(message, source=source, line=line, field=field_name)


def schema_from_definition(definition: Mapping[str, JSON], source: str = "<stored>") -> FactSchema:
    """Rebuild a schema from ``FactSchema.definition()`` (how the store keeps schemas)."""
    fields: dict[str, JSON] = {}
    for name, stored in json_object(definition.get("fields", {})).items():
        spec = json_object(stored)
        doc: dict[str, JSON] = {
            key: spec[key] for key in ("type", "criticality", "many", "description", "cues")
        }
        if spec.get("pattern") is not None:
            doc["pattern"] = spec["pattern"]
        tolerance = dict(json_object(spec.get("tolerance") or {}))
        if "precision" in tolerance:
            doc["precision"] = tolerance.pop("precision")
        if tolerance:
            doc["tolerance"] = tolerance
        if spec.get("values"):
            options = [json_object(v) for v in json_array(spec["values"])]
            doc["values"] = {str(v["value"]): list(json_array(v["synonyms"])) for v in options}
        fields[name] = doc
    data: dict[str, JSON] = {
        "schema": definition["schema"],
        "version": definition["version"],
        "description": definition.get("description", ""),
        "inventory": definition.get("inventory", {}),
        "fields": fields,
    }
    return schema_from_dict(data, source)
