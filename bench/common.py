"""Shared pieces of the benchmarks: label -> fact type mapping, typed value matching, and a
summary verified as demotion verifies it (``as_demoted``).

The mapping reads only the datasets' own slot names and normalised values, never factdiff:

* MultiWOZ: ``Ref``/``Id``/``Post`` -> identifier, ``Phone`` -> phone, ``Time``/``Leave``/
  ``Arrive`` -> time (only when the labelled value is a clock time ``HH:MM``),
  ``Ticket``/``Fee``/``Price`` -> money (only when the labelled value holds a digit).
* SGD: slots ending in ``date`` -> date (canonical ISO date), ending in ``time`` -> time
  (canonical ``HH:MM``), price-like slots -> money (canonical amount), ``*phone*`` -> phone.
* tau-retail: every mock-database ID -> identifier; numbers equal to a price, payment or
  balance the database ties to an ID the transcript mentions -> money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from bench.datasets import Label
from factdiff.compression.verification import extract_summary_and_verify
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.recognizers.registry import parse_value
from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import FactSchema
from factdiff.values.base import FactType, Value
from factdiff.verify.check import DEFAULT_EXTRACTOR, CheckResult
from factdiff.verify.policy import DEFAULT_POLICY

_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?")
_MONEY_SLOT = re.compile(r"price|fare|amount|balance|rent|cost|fee|ticket", re.IGNORECASE)


@dataclass(frozen=True)
class Target:
    """A label with the fact type it should be extracted as, and its benchmark row."""

    label: Label
    fact_type: FactType
    row: str


def multiwoz_target(label: Label) -> Target | None:
    """The expected type of a MultiWOZ ``span_info`` label, or None when untyped."""
    slot, canon = label.slot, label.canonical or ""
    if slot == "Ref":
        return Target(label, FactType.IDENTIFIER, "booking_ref")
    if slot == "Id":
        return Target(label, FactType.IDENTIFIER, "train_id")
    if slot == "Post":
        return Target(label, FactType.IDENTIFIER, "postcode")
    if slot == "Phone":
        return Target(label, FactType.PHONE, "phone")
    if slot in ("Time", "Leave", "Arrive") and _CLOCK.match(canon):
        return Target(label, FactType.TIME, "time")
    if slot in ("Ticket", "Fee", "Price") and any(c.isdigit() for c in canon):
        return Target(label, FactType.MONEY, "price")
    return None


def sgd_target(label: Label) -> Target | None:
    """The expected type of an SGD slot span, or None when untyped."""
    slot, canon = label.slot, label.canonical or ""
    if slot.endswith("date") and _ISO_DATE.match(canon):
        return Target(label, FactType.DATE, "date")
    if slot.endswith("time") and _CLOCK.match(canon):
        return Target(label, FactType.TIME, "time")
    if "phone" in slot:
        return Target(label, FactType.PHONE, "phone")
    if _MONEY_SLOT.search(slot) and decimal_of(canon) is not None:
        return Target(label, FactType.MONEY, "price")
    return None


def tau_target(label: Label) -> Target:
    """A database ID, or an amount the database ties to an ID of the transcript."""
    if label.slot == "amount":
        return Target(label, FactType.MONEY, "amount(db)")
    return Target(label, FactType.IDENTIFIER, label.slot)


TARGETS = {"multiwoz": multiwoz_target, "sgd": sgd_target, "tau": tau_target}


def target_of(dataset: str, label: Label) -> Target | None:
    """The expected type of ``label`` in ``dataset``."""
    fn = TARGETS.get(dataset)
    return fn(label) if fn else None


def decimal_of(text: str) -> Decimal | None:
    """The first number written in ``text`` (``$1,380.50`` -> 1380.50)."""
    m = _AMOUNT.search(text)
    if not m:
        return None
    try:
        return Decimal(m.group().replace(",", ""))
    except InvalidOperation:
        return None


def clock_of(text: str) -> tuple[int, int] | None:
    """``(hour, minute)`` of a labelled ``HH:MM`` value."""
    m = _CLOCK.match(text.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def _time_part(value: Value) -> tuple[int, int] | None:
    hour, minute = getattr(value, "hour", None), getattr(value, "minute", None)
    if isinstance(hour, int) and isinstance(minute, int):
        return hour, minute
    inner = getattr(value, "time", None)
    return _time_part(inner) if isinstance(inner, Value) else None


def _date_part(value: Value) -> str | None:
    if value.type is FactType.DATE:
        return str(value.canonical())
    inner = getattr(value, "date", None)
    return str(inner.canonical()) if isinstance(inner, Value) else None


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def value_matches(target: Target, value: Value, context: ExtractionContext) -> bool:
    """True when the extracted ``value`` states the labelled value (see module docstring).

    identifier: exact text; date: ISO date equal (a datetime's date part counts);
    time: hour and minute equal, or equal modulo 12 (a label may resolve am/pm that the
    text leaves open); money: amount equal (currency not compared: labels rarely give it);
    phone: the label parsed by factdiff's phone parser has the same key, or the same digits.
    """
    label, kind = target.label, target.fact_type
    canon = label.canonical or label.text
    if kind is FactType.IDENTIFIER:
        return value.type is FactType.IDENTIFIER and value.canonical() == label.text
    if kind is FactType.DATE:
        return _date_part(value) == canon
    if kind is FactType.TIME:
        got, want = _time_part(value), clock_of(canon)
        return (
            got is not None
            and want is not None
            and (got == want or (got[0] % 12, got[1]) == (want[0] % 12, want[1]))
        )
    if kind is FactType.MONEY:
        amount = getattr(value, "amount", None)
        return value.type is FactType.MONEY and amount == decimal_of(canon)
    if kind is FactType.PHONE:
        if value.type is not FactType.PHONE:
            return False
        parsed = parse_value(FactType.PHONE, label.text, context)
        if parsed is not None and parsed.key() == value.key():
            return True
        digits = _digits(label.text).lstrip("0")
        return len(digits) >= 7 and _digits(str(value.canonical())).endswith(digits)
    return bool(value.canonical() == canon)


ACCEPTED: dict[FactType, frozenset[FactType]] = {
    FactType.DATE: frozenset({FactType.DATE, FactType.DATETIME}),
    FactType.TIME: frozenset({FactType.TIME, FactType.DATETIME}),
}
"""Extracted types that may state a labelled value of the key type."""


def accepted(kind: FactType) -> frozenset[FactType]:
    """Extracted fact types that can state a labelled value of type ``kind``."""
    return ACCEPTED.get(kind, frozenset({kind}))


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True when two half-open spans share a character."""
    return a[0] < b[1] and b[0] < a[1]


@dataclass(frozen=True)
class Atom:
    """One stated occurrence of an extracted fact: its type, value and span."""

    fact_type: FactType
    value: Value
    span: tuple[int, int]


def atoms_of(inventory: dict[FactType, tuple[Fact, ...]]) -> list[Atom]:
    """Every (type, value, span) occurrence in a record's inventory, sorted by span."""
    out = [
        Atom(fact_type, fact.value, span)
        for fact_type, facts in inventory.items()
        for fact in facts
        for span in fact.spans
    ]
    return sorted(out, key=lambda a: (a.span, a.fact_type.value))


def as_demoted(
    summary: str, source: FactRecord, schema: FactSchema, source_text: str
) -> CheckResult:
    """``summary`` extracted and verified against the source's record as demotion does it:
    the default extractor and policy, the summary and the source read as written."""
    return extract_summary_and_verify(
        DEFAULT_EXTRACTOR, summary, source, schema, DEFAULT_POLICY, source_text
    )
