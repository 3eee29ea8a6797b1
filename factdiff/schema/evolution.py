"""How one version of a fact schema differs from another, and whether that makes old
compressions due for re-evaluation.

``diff_schemas(old, new)`` lists every change, field by field (added, removed, criticality
raised or lowered, type, pattern, cues, tolerance, many, enum values, description) and for
the inventory (a type tracked, dropped, or its criticality changed). A change is **material**
when it can turn a passed compression into a lost fact under the new version: a field (or
inventory type) added or raised to ``critical`` or ``important``, or a ``critical`` or
``important`` field of the new version whose extraction changed (type, pattern, cues,
tolerance, many, enum values). Warm entries compressed under the old version are due for
re-evaluation when the diff has a material change.
"""

from __future__ import annotations

from dataclasses import dataclass

from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.values.base import JSON

__all__ = ["FieldChange", "SchemaDiff", "diff_schemas"]

_WATCHED = frozenset({Criticality.CRITICAL, Criticality.IMPORTANT})
_EXTRACTION_KEYS = ("type", "pattern", "cues", "tolerance", "many", "values")


@dataclass(frozen=True)
class FieldChange:
    """One change of one field (``inventory.<type>`` for the inventory).

    ``change`` is ``added``, ``removed``, ``criticality_raised``, ``criticality_lowered`` or
    the changed key (``type``, ``pattern``, ``cues``, ``tolerance``, ``many``, ``values``,
    ``description``); ``before``/``after`` are the values (``None`` when absent).
    """

    field: str
    change: str
    before: JSON
    after: JSON
    material: bool

    def to_json(self) -> dict[str, JSON]:
        """``{"field", "change", "before", "after", "material"}``."""
        return {
            "field": self.field,
            "change": self.change,
            "before": self.before,
            "after": self.after,
            "material": self.material,
        }


@dataclass(frozen=True)
class SchemaDiff:
    """The changes from ``old_version`` to ``new_version`` of schema ``name``."""

    name: str
    old_version: int
    new_version: int
    changes: tuple[FieldChange, ...]

    @property
    def material(self) -> bool:
        """Whether compressions under the old version are due for re-evaluation."""
        return any(change.material for change in self.changes)

    def to_json(self) -> dict[str, JSON]:
        """The ``schema diff --json`` object."""
        return {
            "name": self.name,
            "from_version": self.old_version,
            "to_version": self.new_version,
            "material": self.material,
            "changes": [change.to_json() for change in self.changes],
        }


def diff_schemas(old: FactSchema, new: FactSchema) -> SchemaDiff:
    """Every change from ``old`` to ``new``, fields in the new version's order, then the
    removed fields, then the inventory (see the module docstring)."""
    before = {spec.name: spec for spec in old.fields}
    after = {spec.name: spec for spec in new.fields}
    changes: list[FieldChange] = []
    for name, spec in after.items():
        if name not in before:
            changes.append(
                FieldChange(
                    name, "added", None, spec.criticality.value, spec.criticality in _WATCHED
                )
            )
        else:
            changes.extend(_field_changes(before[name], spec))
    for name, spec in before.items():
        if name not in after:
            changes.append(FieldChange(name, "removed", spec.criticality.value, None, False))
    changes.extend(_inventory_changes(old, new))
    return SchemaDiff(new.name, old.version, new.version, tuple(changes))


def _criticality_change(
    name: str, old: Criticality | None, new: Criticality | None
) -> FieldChange | None:
    if old == new:
        return None
    if old is None:
        assert new is not None
        return FieldChange(name, "added", None, new.value, new in _WATCHED)
    if new is None:
        return FieldChange(name, "removed", old.value, None, False)
    raised = new.rank < old.rank
    return FieldChange(
        name,
        "criticality_raised" if raised else "criticality_lowered",
        old.value,
        new.value,
        raised and new in _WATCHED,
    )


def _field_changes(old: FieldSpec, new: FieldSpec) -> list[FieldChange]:
    changes: list[FieldChange] = []
    level = _criticality_change(old.name, old.criticality, new.criticality)
    if level is not None:
        changes.append(level)
    old_def, new_def = old.definition(), new.definition()
    for key in (*_EXTRACTION_KEYS, "description"):
        if old_def[key] != new_def[key]:
            material = key in _EXTRACTION_KEYS and new.criticality in _WATCHED
            changes.append(FieldChange(old.name, key, old_def[key], new_def[key], material))
    return changes


def _inventory_changes(old: FactSchema, new: FactSchema) -> list[FieldChange]:
    changes: list[FieldChange] = []
    for fact_type in sorted(set(old.inventory) | set(new.inventory), key=lambda t: t.value):
        change = _criticality_change(
            f"inventory.{fact_type.value}",
            old.inventory.get(fact_type),
            new.inventory.get(fact_type),
        )
        if change is not None:
            changes.append(change)
    return changes
