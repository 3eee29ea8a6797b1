"""The fact schema: a named, integer-versioned set of typed fields with criticalities."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from factdiff.schema.fields import Criticality, EnumOption, FieldSpec
from factdiff.schema.validate import validate_parts
from factdiff.values.base import JSON, FactType

__all__ = [
    "Criticality",
    "EnumOption",
    "FactSchema",
    "FieldSpec",
    "SchemaRef",
    "canonical_json",
    "schema_digest",
    "tagged_digest",
    "tagged_text_digest",
]


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
    def from_json(cls, data: Mapping[str, JSON]) -> SchemaRef:
        """Inverse of ``to_json``."""
        version = data["version"]
        if not isinstance(version, int | str) or isinstance(version, bool):
            raise TypeError(f"schema version {version!r} is not a whole number")
        return cls(name=str(data["name"]), version=int(version), hash=str(data["hash"]))


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
