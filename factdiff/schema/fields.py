"""A schema's fields: their criticality, their enum options and their typed spec."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from factdiff.schema.patterns import SafePattern, compile_pattern
from factdiff.values.base import JSON, FactType, Tolerance

__all__ = ["Criticality", "EnumOption", "FieldSpec"]


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
