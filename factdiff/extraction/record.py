"""Fact records: the values one extractor found for one schema in one text, with evidence."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from types import MappingProxyType
from typing import TypeVar

from factdiff.inputs.json_toml import json_array, json_int, json_object
from factdiff.schema.model import SchemaRef, tagged_digest
from factdiff.values import decision as _decision  # noqa: F401  (registers its decoder)
from factdiff.values.base import JSON, FactType, Value, value_from_json

Span = tuple[int, int]
K = TypeVar("K")

NEAR_CUE_CHARS = 24
"""A cue at most this many characters from its value, in the same sentence, binds strongly."""


class BindingKind(enum.StrEnum):
    """How a field fact was tied to its field."""

    PATTERN = "pattern"
    """By the field's pattern."""
    CUE = "cue"
    """By one of the field's cues near the value (for enum and boolean fields: the phrase)."""
    TYPE = "type"
    """By its type alone (the first or every value of the field's type)."""


@dataclass(frozen=True)
class Binding:
    """How a fact was bound to its field: by pattern, by which cue and how far, or by type.

    A binding is **strong** when it says which role the value plays: a pattern with a
    capturing group (the pattern states the context), or a cue at most
    :data:`NEAR_CUE_CHARS` characters away in the same sentence. Two strong bindings of one
    field with different values are a change even when each value is stated elsewhere.
    """

    kind: BindingKind = BindingKind.TYPE
    cue: str = ""
    """The cue as written (lowercased), for ``CUE``."""
    distance: int | None = None
    """Characters between the cue and the value (a cue after the value counts farther)."""
    same_clause: bool = False
    """No clause boundary (``,`` ``;`` ``:``, ``and``, ``but``...) between cue and value."""
    contextual: bool = False
    """For ``PATTERN``: the pattern captures the value inside a wider context."""

    @property
    def strong(self) -> bool:
        """Whether the binding states the value's role (see the class docstring)."""
        if self.kind is BindingKind.PATTERN:
            return self.contextual
        if self.kind is BindingKind.CUE:
            return self.distance is not None and self.distance <= NEAR_CUE_CHARS
        return False

    def to_json(self) -> dict[str, JSON]:
        """``{"kind", "cue", "distance", "same_clause", "contextual"}`` (unset keys left out)."""
        data: dict[str, JSON] = {"kind": self.kind.value}
        if self.cue:
            data["cue"] = self.cue
        if self.distance is not None:
            data["distance"] = self.distance
        if self.same_clause:
            data["same_clause"] = True
        if self.contextual:
            data["contextual"] = True
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, JSON] | None) -> Binding:
        """Inverse of ``to_json``; ``None`` (a record of an earlier version) is type-only."""
        if not data:
            return TYPE_ONLY
        distance = data.get("distance")
        return cls(
            kind=BindingKind(str(data.get("kind", BindingKind.TYPE.value))),
            cue=str(data.get("cue", "")),
            distance=None if distance is None else json_int(distance),
            same_clause=bool(data.get("same_clause", False)),
            contextual=bool(data.get("contextual", False)),
        )


TYPE_ONLY = Binding()


@dataclass(frozen=True)
class Fact:
    """One value and every place in the text that states it.

    ``binding`` says how a field fact was tied to its field (type-only for inventory atoms);
    ``roles`` are the roles the text gives the value where it states it (``departure``,
    ``arrival``, ``total``...; see ``factdiff.extraction.roles``), one entry per distinct role.
    """

    value: Value
    spans: tuple[Span, ...]
    text: str = ""
    """The surface form at the first span, for display."""
    binding: Binding = TYPE_ONLY
    roles: tuple[str, ...] = ()
    occurrences: int = 1
    """How many separate times the text states the value: a decision taken again after
    another of its class was asked for (``I booked your bus``, ``shall I book the car?``,
    ``your reservation has been made``: two bookings); its restatements are one."""

    def to_json(self) -> dict[str, JSON]:
        """Lossless JSON form (``binding``, ``roles`` and ``occurrences`` only when set)."""
        data: dict[str, JSON] = {
            "value": self.value.to_json(),
            "spans": [list(s) for s in self.spans],
            "text": self.text,
        }
        if self.binding != TYPE_ONLY:
            data["binding"] = self.binding.to_json()
        if self.roles:
            data["roles"] = list(self.roles)
        if self.occurrences != 1:
            data["occurrences"] = self.occurrences
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Fact:
        """Inverse of ``to_json``; facts stored without a binding load as type-only, without
        ``occurrences`` as stated once."""
        spans = tuple(_span(s) for s in json_array(data["spans"]))
        binding = data.get("binding")
        occurrences = json_int(data.get("occurrences", 1))
        if occurrences < 1:
            raise ValueError(f"a fact's occurrences must be 1 or more, not {occurrences}")
        return cls(
            value_from_json(dict(json_object(data["value"]))),
            spans,
            str(data.get("text", "")),
            Binding.from_json(None if binding is None else json_object(binding)),
            tuple(str(r) for r in json_array(data.get("roles", ()))),
            occurrences,
        )


def _span(pair: JSON) -> Span:
    if type(pair) is list and len(pair) == 2:  # the stored form, read without conversions
        start, end = pair
        if type(start) is int and type(end) is int:
            return start, end
    items = json_array(pair)
    return json_int(items[0]), json_int(items[1])


def _facts(items: JSON) -> tuple[Fact, ...]:
    return tuple(Fact.from_json(json_object(f)) for f in json_array(items))


def _frozen(mapping: Mapping[K, tuple[Fact, ...]]) -> Mapping[K, tuple[Fact, ...]]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class FactRecord:
    """The facts of one text under one schema.

    ``fields`` has every schema field as a key (an empty tuple when nothing was found);
    ``inventory`` holds typed atoms that no field claimed, by type; ``unbound`` the atoms of a
    field's type that no field claimed and no tracked inventory type holds (``Irene Costa``
    written without the cue of a ``customer`` field): the diff counts them as the value
    restated, never as a finding of their own.
    """

    schema: SchemaRef
    fields: Mapping[str, tuple[Fact, ...]]
    inventory: Mapping[FactType, tuple[Fact, ...]] = field(default_factory=dict)
    reference: date | None = None
    extractor: str = "rules"
    unbound: Mapping[FactType, tuple[Fact, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", _frozen(self.fields))
        object.__setattr__(self, "inventory", _frozen(self.inventory))
        object.__setattr__(self, "unbound", _frozen(self.unbound))

    def atoms(self, fact_type: FactType, field_types: Mapping[str, FactType]) -> Iterator[Fact]:
        """Every fact of ``fact_type`` in the record: field values and inventory alike."""
        for name, facts in self.fields.items():
            if field_types.get(name) is fact_type:
                yield from facts
        yield from self.inventory.get(fact_type, ())

    def fact_count(self) -> int:
        """How many distinct facts the record holds."""
        return sum(len(f) for f in self.fields.values()) + sum(
            len(f) for f in self.inventory.values()
        )

    def to_json(self) -> dict[str, JSON]:
        """Lossless JSON form (the stored form of a warm entry's fact record); ``unbound``
        only when there is some (records without it keep their digest)."""
        data: dict[str, JSON] = {
            "schema": self.schema.to_json(),
            "extractor": self.extractor,
            "reference": self.reference.isoformat() if self.reference else None,
            "fields": {name: [f.to_json() for f in facts] for name, facts in self.fields.items()},
            "inventory": {
                t.value: [f.to_json() for f in facts] for t, facts in sorted(self.inventory.items())
            },
        }
        if any(self.unbound.values()):
            data["unbound"] = {
                t.value: [f.to_json() for f in facts]
                for t, facts in sorted(self.unbound.items())
                if facts
            }
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> FactRecord:
        """Inverse of ``to_json``."""
        reference = data.get("reference")
        unbound = data.get("unbound")
        return cls(
            schema=SchemaRef.from_json(json_object(data["schema"])),
            fields={k: _facts(v) for k, v in json_object(data["fields"]).items()},
            inventory={FactType(k): _facts(v) for k, v in json_object(data["inventory"]).items()},
            reference=date.fromisoformat(str(reference)) if reference else None,
            extractor=str(data.get("extractor", "rules")),
            unbound={FactType(k): _facts(v) for k, v in json_object(unbound or {}).items()},
        )

    def digest(self) -> str:
        """Tagged content hash of the record."""
        return tagged_digest("factdiff.extraction.record", self.to_json())

    def public_json(self, many: Mapping[str, bool]) -> dict[str, JSON]:
        """The ``factdiff extract --json`` view: facts, evidence and inventory."""
        facts: dict[str, JSON] = {}
        evidence: dict[str, JSON] = {}
        bindings: dict[str, JSON] = {}
        for name, found in self.fields.items():
            values = [f.value.canonical() for f in found]
            facts[name] = values if many.get(name, False) else (values[0] if values else None)
            evidence[name] = [list(span) for f in found for span in f.spans]
            bindings[name] = [f.binding.to_json() for f in found]
        inventory: dict[str, JSON] = {
            t.value: [_inventory_json(f) for f in found]
            for t, found in sorted(self.inventory.items())
            if found
        }
        return {
            "schema": self.schema.to_json(),
            "reference": self.reference.isoformat() if self.reference else None,
            "facts": facts,
            "evidence": evidence,
            "bindings": bindings,
            "inventory": inventory,
        }


def _inventory_json(fact: Fact) -> dict[str, JSON]:
    data: dict[str, JSON] = {
        "value": fact.value.canonical(),
        "text": fact.text,
        "spans": [list(s) for s in fact.spans],
    }
    if fact.roles:
        data["roles"] = list(fact.roles)
    if fact.occurrences != 1:
        data["occurrences"] = fact.occurrences
    return data
