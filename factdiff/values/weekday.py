"""A weekday that no reference date resolves: a partial date compared as a day of the week.

With the entry's own date as the reference, "next Tuesday" is a full date (see
``factdiff.values.temporal``). Without one (``factdiff check`` on two bare texts with no
date in the source), the text still states a day of the week and its relation to "now":
``Tuesday`` (also "this", "coming" and "next Tuesday": the coming one), ``last Tuesday``,
``Tuesday this week``, ``Tuesday next week``, ``Tuesday last week``. Such a value is
a partial date of type ``date``:

* two weekday values are the same when the days are equal and the relations do not
  contradict each other: equal, or the coming one beside "this week" or "next week", or "last"
  beside "this week" or "last week" (which of those is meant depends on the unknown day);
* a weekday value and a full date are the same when the date falls on that weekday;
  a year-less or month-less date states no weekday and is never the same.

"Tuesdays" and "every Tuesday" are recurring, not dates, and are not read at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import ClassVar, Final, Protocol, runtime_checkable

from factdiff.errors import InvalidValue
from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value

__all__ = ["RELATIONS", "WEEKDAY_NAMES", "WeekdayValue", "decode_weekday"]

WEEKDAY_NAMES: Final = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip
"""Day names by ``date.weekday()`` (0 is Monday)."""

RELATIONS: Final = ("", "last", "this week", "next week", "last week")
"""A weekday's relation to the unknown reference: ``""`` is the coming one."""

_COMPATIBLE: Final = frozenset(
    {
        frozenset({"", "this week"}),
        frozenset({"", "next week"}),
        frozenset({"last", "this week"}),
        frozenset({"last", "last week"}),
    }
)


@runtime_checkable
class _CalendarDate(Protocol):
    """A date value that may know its calendar day (``DateValue``)."""

    def to_date(self) -> date | None:
        """The ``datetime.date``, or None for a partial date."""
        ...


@dataclass(frozen=True)
class WeekdayValue(Value):
    """A day of the week (0 is Monday) and its relation to the unknown reference; canonical
    ``Tuesday``, ``last Tuesday``, ``Tuesday next week`` (see the module docstring)."""

    type: ClassVar[FactType] = FactType.DATE
    weekday: int
    relation: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.weekday <= 6:
            raise InvalidValue(f"weekday must be 0 (Monday) to 6 (Sunday), got {self.weekday}")
        if self.relation not in RELATIONS:
            raise InvalidValue(f"relation must be one of {RELATIONS}, got {self.relation!r}")

    def canonical(self) -> str:
        name = WEEKDAY_NAMES[self.weekday]
        if self.relation == "last":
            return f"last {name}"
        return f"{name} {self.relation}" if self.relation else name

    def key(self) -> object:
        return ("weekday", self.weekday, self.relation)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        if isinstance(other, WeekdayValue):
            return self.weekday == other.weekday and (
                self.relation == other.relation
                or frozenset({self.relation, other.relation}) in _COMPATIBLE
            )
        if other.type is not FactType.DATE or not isinstance(other, _CalendarDate):
            return False
        day = other.to_date()
        return day is not None and day.weekday() == self.weekday

    def to_json(self) -> dict[str, JSON]:
        return {"type": self.type.value, "weekday": self.weekday, "relation": self.relation}


def decode_weekday(data: dict[str, JSON]) -> WeekdayValue:
    """Rebuild a weekday value from its ``to_json()`` form (tagged ``date``: the date
    decoder hands over the forms with a ``weekday``)."""
    weekday, relation = data.get("weekday"), data.get("relation", "")
    if isinstance(weekday, bool) or not isinstance(weekday, int) or not isinstance(relation, str):
        raise InvalidValue(f"a weekday needs an integer weekday and a relation, got {data!r}")
    return WeekdayValue(weekday, relation)
