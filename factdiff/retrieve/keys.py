"""Fact keys: the canonical identity of a fact value, as the fact index stores it.

A key is ``<type>:<canonical JSON of Value.key()>``, the identity the diff compares with, so
``$14,250``, ``14,250 USD`` and ``fourteen thousand two hundred fifty dollars`` share the key
``money:["14250","USD"]``. The index stores a 64-bit hash of each key (BLAKE2b), which keeps it
small; a hash collision can only add a candidate, and every match is re-checked against the
entry's record before it is reported.

An indexed fact also gets the keys of the ways a query may state it more loosely:

* a full date: its month and day without a year (``March 25`` finds ``2026-03-25``);
* a time with a zone: the time as written, without the zone (``2:32 PM`` finds
  ``14:32 EST``);
* a datetime: the keys of its date and of its time;
* money: its amount as a plain number (``14250`` finds ``$14,250``);
* an identifier: case-folded (``inv-9182`` finds ``INV-9182``); a phone number or a long
  numeric identifier: its digits.

A query fact looks up only its own key (and a datetime also its date), so the looser forms
never make a precise query vague.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Iterator, Mapping

from factdiff.extraction.record import Fact, FactRecord
from factdiff.inputs.json_toml import JSON, json_object, json_objects
from factdiff.values.base import FactType, Value, json_string
from factdiff.values.numeric import MoneyValue, NumberValue
from factdiff.values.temporal import DateTimeValue, DateValue, TimeValue

INDEXED_TYPES = frozenset(
    {
        FactType.IDENTIFIER,
        FactType.MONEY,
        FactType.NUMBER,
        FactType.PERCENT,
        FactType.QUANTITY,
        FactType.DATE,
        FactType.DATETIME,
        FactType.TIME,
        FactType.DURATION,
        FactType.PERSON,
        FactType.ORGANIZATION,
        FactType.EMAIL,
        FactType.PHONE,
        FactType.URL,
    }
)
"""Types whose values go into the fact index (enum, boolean, text and tool-call values are
found through the text index)."""

DISTINCTIVE_TYPES = frozenset(
    {
        FactType.IDENTIFIER,
        FactType.MONEY,
        FactType.DATE,
        FactType.DATETIME,
        FactType.EMAIL,
        FactType.PHONE,
        FactType.URL,
        FactType.PERSON,
        FactType.ORGANIZATION,
    }
)
"""Types whose values single an entry out: a query fact of one of these that an entry holds
ranks it above every entry matched by text alone. Times of day, numbers, quantities,
percentages, durations and dates without a year recur across many entries (``2 people``,
``10:15``); they raise an entry's rank within its group instead."""


_COMPARABLE: dict[FactType, frozenset[FactType]] = {
    FactType.IDENTIFIER: frozenset({FactType.IDENTIFIER, FactType.PHONE}),
    FactType.PHONE: frozenset({FactType.PHONE, FactType.IDENTIFIER}),
    FactType.NUMBER: frozenset({FactType.NUMBER, FactType.MONEY}),
    FactType.DATE: frozenset({FactType.DATE, FactType.DATETIME}),
    FactType.TIME: frozenset({FactType.TIME, FactType.DATETIME}),
}


def comparable_types(fact_type: FactType) -> frozenset[FactType]:
    """The types of indexed values that may share a key with a query value of ``fact_type``
    (a number meets money by its amount, a date meets a datetime's date...)."""
    return _COMPARABLE.get(fact_type, frozenset({fact_type}))


_JSON_IDENTITY = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode
"""``json.dumps`` with these options, its encoder made once (see ``json_string``)."""


def key_text(value: Value) -> str:
    """``<type>:<canonical JSON of value.key()>`` (identifiers case-folded)."""
    if value.type is FactType.IDENTIFIER:
        return f"identifier:{json_string(str(value.key()).casefold())}"
    return f"{value.type.value}:{_JSON_IDENTITY(value.key())}"


def key_hash(key: str) -> int:
    """The signed 64-bit hash the index stores for ``key``."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def indexed_keys(value: Value) -> set[str]:
    """Every key under which an entry holding ``value`` is found (see the module docstring)."""
    keys = {key_text(value)}
    if isinstance(value, DateTimeValue):
        keys |= indexed_keys(value.date) | indexed_keys(value.time)
    elif isinstance(value, DateValue) and value.year is not None:
        keys.add(key_text(DateValue(None, value.month, value.day)))
    elif isinstance(value, TimeValue) and value.offset_minutes is not None:
        keys.add(key_text(TimeValue(value.hour, value.minute, value.second)))
    elif isinstance(value, MoneyValue):
        keys.add(key_text(NumberValue(value.amount)))
    digits = value.digit_key()
    if digits:
        keys.add(f"digits:{digits}")
    return keys


def query_keys(value: Value) -> set[str]:
    """The keys a query fact looks up: its own, and a datetime's date."""
    keys = {key_text(value)}
    if isinstance(value, DateTimeValue):
        keys.add(key_text(value.date))
    digits = value.digit_key()
    if digits:
        keys.add(f"digits:{digits}")
    return keys


def record_facts(record: FactRecord) -> Iterator[tuple[str, Fact]]:
    """``(field, fact)`` for every fact of a record (inventory atoms as ``inventory.<type>``)."""
    for name, facts in record.fields.items():
        for fact in facts:
            yield name, fact
    for fact_type, facts in sorted(record.inventory.items()):
        for fact in facts:
            yield f"inventory.{fact_type.value}", fact


def typed_facts(
    data: Mapping[str, JSON], types: Collection[FactType]
) -> Iterator[tuple[str, Fact]]:
    """``(field, fact)`` for the facts of a stored record's JSON whose value is of one of
    ``types``, parsing only those (the order of ``record_facts``)."""
    wanted = {t.value for t in types}
    fields = json_object(data.get("fields") or {})
    inventory = json_object(data.get("inventory") or {})
    for name, facts in fields.items():
        for fact in json_objects(facts):
            if json_object(fact["value"]).get("type") in wanted:
                yield name, Fact.from_json(fact)
    for type_name, facts in sorted(inventory.items()):
        if type_name in wanted:
            for fact in json_objects(facts):
                yield f"inventory.{type_name}", Fact.from_json(fact)


def record_keys(record: FactRecord) -> set[str]:
    """Every key of every indexed fact of ``record``."""
    keys: set[str] = set()
    for _, fact in record_facts(record):
        if fact.value.type in INDEXED_TYPES:
            keys |= indexed_keys(fact.value)
    return keys


def key_hashes(keys: Iterable[str]) -> tuple[int, ...]:
    """The hashes of ``keys``, sorted and distinct."""
    return tuple(sorted({key_hash(k) for k in keys}))
