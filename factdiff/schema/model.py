"""The fact schema: a named, integer-versioned set of typed fields with criticalities."""

from __future__ import annotations

import enum
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from factdiff.schema.patterns import SafePattern, compile_pattern
from factdiff.schema.validate import validate_parts
from factdiff.values.base import JSON, FactType, Tolerance


class Criticality(enum.StrEnum):
    """How much losing a fact matters."""

    CRITICAL = "critical"
    IMPORTANT = "important"
    CONTEXTUAL = "contextual"

    @property
    def rank(self) -> int:
        """0 for critical, 1 for important, 2 for contextual (for sorting)."""
        return list(Criticality).index(self)


@dataclass(frozen=True)
class EnumOption:
    """One allowed value of an enum field and the phrases that mean it."""

    value: str
    synonyms: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldSpec:
    """One typed field of a schema."""

    name: str
    type: FactType
    criticality: Criticality
    many: bool = False
    description: str = ""
    pattern: str | None = None
    """A regular expression that finds this field's values (group 1 if present, else all)."""
    cues: tuple[str, ...] = ()
    """Words near which this field's values are stated (``totaling`` for a total)."""
    tolerance: Tolerance = field(default_factory=Tolerance)
    options: tuple[EnumOption, ...] = ()
    """Allowed values of an enum field."""

    @property
    def compiled_pattern(self) -> re.Pattern[str] | None:
        """The ``pattern`` compiled by Python's ``re`` (for inspection; never run on texts)."""
        return _compile(self.pattern) if self.pattern is not None else None

    @property
    def safe_pattern(self) -> SafePattern | None:
        """The ``pattern`` on RE2, linear in the text (what extraction runs)."""
        return compile_pattern(self.pattern, self.name) if self.pattern is not None else None

    def definition(self) -> dict[str, JSON]:
        """The normalised definition, the input of the schema hash."""
        tolerance: dict[str, JSON] = {}
        if self.tolerance.absolute is not None:
            tolerance["absolute"] = str(self.tolerance.absolute)
        if self.tolerance.relative is not None:
            tolerance["relative"] = str(self.tolerance.relative)
        if self.tolerance.precision is not None:
            tolerance["precision"] = self.tolerance.precision.value
        return {
            "type": self.type.value,
            "criticality": self.criticality.value,
            "many": self.many,
            "description": self.description,
            "pattern": self.pattern,
            "cues": list(self.cues),
            "tolerance": tolerance,
            "values": [{"value": o.value, "synonyms": list(o.synonyms)} for o in self.options],
        }


_PATTERN_CACHE: dict[str, re.Pattern[str]] = {}


def _compile(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERN_CACHE.get(pattern)
    if compiled is None:
        compiled = re.compile(pattern)
        _PATTERN_CACHE[pattern] = compiled
    return compiled


@dataclass(frozen=True)
class SchemaRef:
    """Which schema a record or diff was made with."""

    name: str
    version: int
    hash: str

    def to_json(self) -> dict[str, JSON]:
        """``{"name", "version", "hash"}``."""
        return {"name": self.name, "version": self.version, "hash": self.hash}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SchemaRef:
        """Inverse of ``to_json``."""
        return cls(name=str(data["name"]), version=int(data["version"]), hash=str(data["hash"]))


@dataclass(frozen=True)
class FactSchema:
    """A domain fact schema. Build it with ``FactSchema.build`` or load it from YAML."""

    name: str
    version: int
    description: str
    fields: tuple[FieldSpec, ...]
    inventory: Mapping[FactType, Criticality]
    hash: str

    @classmethod
    def build(
        cls,
        name: str,
        version: int,
        fields: tuple[FieldSpec, ...] | list[FieldSpec] = (),
        inventory: Mapping[FactType, Criticality] | None = None,
        description: str = "",
    ) -> FactSchema:
        """Validate the parts and compute the content hash."""
        fields = tuple(fields)
        inventory_map = dict(inventory or {})
        validate_parts(name, version, fields, inventory_map)
        digest = schema_digest(name, version, description, fields, inventory_map)
        return cls(
            name=name,
            version=version,
            description=description,
            fields=fields,
            inventory=MappingProxyType(inventory_map),
            hash=digest,
        )

    @property
    def ref(self) -> SchemaRef:
        """The (name, version, hash) triple stored with every record."""
        return SchemaRef(self.name, self.version, self.hash)

    def field(self, name: str) -> FieldSpec:
        """The field called ``name``; ``KeyError`` if there is none."""
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def definition(self) -> dict[str, JSON]:
        """The normalised definition (the input of the hash)."""
        return _definition(self.name, self.version, self.description, self.fields, self.inventory)

    def inventory_criticality(self, fact_type: FactType) -> Criticality | None:
        """The inventory criticality of a type, or None when the type is not tracked."""
        return self.inventory.get(fact_type)


def _definition(
    name: str,
    version: int,
    description: str,
    fields: tuple[FieldSpec, ...],
    inventory: Mapping[FactType, Criticality],
) -> dict[str, JSON]:
    return {
        "schema": name,
        "version": version,
        "description": description,
        "inventory": {t.value: c.value for t, c in sorted(inventory.items())},
        "fields": {f.name: f.definition() for f in fields},
    }


def canonical_json(data: JSON) -> str:
    """The canonical JSON text used for every hash: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tagged_digest(kind: str, data: JSON) -> str:
    """``sha256:<hex>`` of ``kind`` + NUL + canonical JSON of ``data``."""
    return tagged_text_digest(kind, canonical_json(data))


def tagged_text_digest(kind: str, text: str) -> str:
    """``tagged_digest`` of the data whose canonical JSON is ``text``."""
    payload = kind.encode() + b"\0" + text.encode("utf-8")
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def schema_digest(
    name: str,
    version: int,
    description: str,
    fields: tuple[FieldSpec, ...],
    inventory: Mapping[FactType, Criticality],
) -> str:
    """The content hash of a schema: field order, YAML formatting and comments don't count."""
    return tagged_digest(
        "factdiff.schema", _definition(name, version, description, fields, inventory)
    )
