"""Known gaps: the facts a warm entry's narrative lost at compression, as retrieval shows them.

Every read of gaps goes through ``known_gaps``: it is the one place that knows where the warm
meta keeps them (today ``lost_important_fields``, a list of field names such as ``call_time``
or ``inventory.time``) and takes each field's criticality and fact type from the entry's
schema. When warm meta becomes a typed model with typed gaps, only this function changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from factdiff.schema.model import Criticality, FactSchema
from factdiff.values.base import FactType

INVENTORY_PREFIX = "inventory."


@dataclass(frozen=True)
class KnownGap:
    """A field (or inventory type) whose value the narrative does not state."""

    field: str
    criticality: Criticality | None
    """From the schema; ``None`` when the schema no longer has the field."""
    fact_type: FactType | None

    def to_json(self) -> dict[str, str | None]:
        """``{"field", "criticality", "type"}``."""
        return {
            "field": self.field,
            "criticality": None if self.criticality is None else self.criticality.value,
            "type": None if self.fact_type is None else self.fact_type.value,
        }

    @property
    def words(self) -> tuple[str, ...]:
        """The words that name the field in a question (``call_time`` -> call, time)."""
        name = self.field.removeprefix(INVENTORY_PREFIX)
        return tuple(part for part in name.casefold().replace("-", "_").split("_") if part)


def known_gaps(meta: Mapping[str, Any], schema: FactSchema | None) -> tuple[KnownGap, ...]:
    """The known gaps of a warm entry from its compression ``meta``, typed by ``schema``.

    Each lost field once, in the order compression recorded them.
    """
    names = meta.get("lost_important_fields") or []
    gaps: dict[str, KnownGap] = {}
    for name in names if isinstance(names, list) else []:
        if isinstance(name, str) and name not in gaps:
            gaps[name] = _typed(name, schema)
    return tuple(gaps.values())


def _typed(name: str, schema: FactSchema | None) -> KnownGap:
    if schema is None:
        return KnownGap(name, None, None)
    if name.startswith(INVENTORY_PREFIX):
        try:
            fact_type = FactType(name.removeprefix(INVENTORY_PREFIX))
        except ValueError:
            return KnownGap(name, None, None)
        return KnownGap(name, schema.inventory_criticality(fact_type), fact_type)
    try:
        spec = schema.field(name)
    except KeyError:
        return KnownGap(name, None, None)
    return KnownGap(name, spec.criticality, spec.type)
