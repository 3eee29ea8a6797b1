"""``matches``: whether an item's value passes a LangGraph search filter.

The semantics of LangGraph's in-memory store (``langgraph.store.memory``): each filter key
names a top-level field of the value; a plain filter value must equal the field (a dict
matches field by field, a list element by element); a dict of operators compares with
``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte`` (the ordering ones numerically). Where
the in-memory store raises on a field that is missing or not a number under an ordering
operator, this one says the item does not match, as PostgreSQL's JSONB comparisons do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from factdiff.errors import InputError

__all__ = ["OPERATORS", "UnsupportedFilter", "check_filter", "matches"]


class UnsupportedFilter(InputError, ValueError):
    """A search filter uses an operator this store does not know (also a ValueError, as
    LangGraph's stores raise)."""


_ORDERING: dict[str, Callable[[float, float], bool]] = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}
OPERATORS = ("$eq", "$ne", *_ORDERING)


def check_filter(conditions: Mapping[str, object]) -> None:
    """``UnsupportedFilter`` for an unknown operator or an ordering bound that is not a
    number, anywhere in ``conditions``, before any item is read."""
    for condition in conditions.values():
        _check(condition)


def _check(condition: object) -> None:
    if isinstance(condition, Mapping):
        if any(str(key).startswith("$") for key in condition):
            for operator, bound in condition.items():
                if operator not in OPERATORS:
                    raise UnsupportedFilter(
                        f"unsupported filter operator {operator!r}: use one of "
                        + ", ".join(OPERATORS)
                    )
                if operator in _ORDERING and _number(bound) is None:
                    raise UnsupportedFilter(
                        f"filter {operator} needs a number (got {bound!r}): give a number"
                    )
            return
        for inner in condition.values():
            _check(inner)
    elif isinstance(condition, list | tuple):
        for inner in condition:
            _check(inner)


def matches(value: Mapping[str, object], conditions: Mapping[str, object] | None) -> bool:
    """Whether ``value`` passes every condition (no conditions: it does)."""
    if not conditions:
        return True
    return all(_compare(value.get(field), wanted) for field, wanted in conditions.items())


def _compare(found: object, wanted: object) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(key).startswith("$") for key in wanted):
            return all(_apply(found, op, bound) for op, bound in wanted.items())
        if not isinstance(found, Mapping):
            return False
        return all(_compare(found.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(wanted)
            and all(_compare(f, w) for f, w in zip(found, wanted, strict=True))
        )
    return found == wanted


def _apply(found: object, operator: str, bound: object) -> bool:
    if operator == "$eq":
        return found == bound
    if operator == "$ne":
        return found != bound
    left, right = _number(found), _number(bound)
    if left is None or right is None:
        return False
    return _ORDERING[operator](left, right)


def _number(value: object) -> float | None:
    """``value`` as a finite float when it is a number or a numeric string, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None
