"""Surface forms: how dates, times, amounts, durations and tool calls are written, and how
sentences are picked, shuffled and padded into paragraphs."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from random import Random

from factdiff.demo.corpus.tables import MONTHS, WEEKDAYS
from factdiff.demo.corpus.timekeeping import _local, _offset, _Zone

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


def _date_text(rng: Random, day: date, reference: date, roll: float | None = None) -> str:
    """A date as people write it: ISO, ``March 25, 2026``, ``25 March 2026`` or ``March 25``.

    Pass the same ``roll`` to write several dates of one list in one style.
    """
    roll = rng.random() if roll is None else roll
    if roll < 0.4:
        return day.isoformat()
    if roll < 0.8:
        return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"
    if roll < 0.9 and day.year == reference.year:
        return f"{MONTHS[day.month - 1]} {day.day}"
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _clock(rng: Random, wall: datetime) -> str:
    if rng.random() < 0.5:
        return f"{wall:%H:%M}"
    suffix = "AM" if wall.hour < 12 else "PM"
    return f"{(wall.hour - 1) % 12 + 1}:{wall:%M} {suffix}"


def _when(rng: Random, zone: _Zone, instant: datetime, iso_ok: bool = False) -> str:
    """A date and time with its zone, with its preposition (``at 2026-03-14 14:32 EST``)."""
    wall, abbreviation = _local(zone, instant)
    long_date = f"{MONTHS[wall.month - 1]} {wall.day}, {wall.year}"
    roll = rng.random()
    if iso_ok and roll < 0.15:
        hours = _offset(zone, instant)
        return f"at {wall:%Y-%m-%dT%H:%M}{'-' if hours < 0 else '+'}{abs(hours):02d}:00"
    if roll < 0.35:
        return f"at {wall:%Y-%m-%d %H:%M} {abbreviation}"
    if roll < 0.6:
        return f"on {long_date} at {_clock(rng, wall)} {abbreviation}"
    if roll < 0.8:
        return f"at {_clock(rng, wall)} {abbreviation} on {wall:%Y-%m-%d}"
    return f"at {_clock(rng, wall)} {abbreviation} on {WEEKDAYS[wall.weekday()]}, {long_date}"


def _time_only(zone: _Zone, instant: datetime) -> str:
    wall, abbreviation = _local(zone, instant)
    return f"{wall:%H:%M} {abbreviation}"


def _money(rng: Random, amount: Decimal, currency: str = "USD", short: bool = False) -> str:
    """``$14,250``, ``USD 14,250``, ``14,250 USD``, ``$14,250.00``; ``€12.5k`` when ``short``."""
    symbol = SYMBOLS[currency]
    whole = amount == amount.to_integral_value()
    if short and whole and amount >= 1000 and amount % 100 == 0:
        thousands = (amount / 1000).normalize()
        return f"{symbol}{thousands:f}k"
    number = f"{amount:,.0f}" if whole and rng.random() < 0.85 else f"{amount:,.2f}"
    roll = rng.random()
    if roll < 0.65:
        return f"{symbol}{number}"
    if roll < 0.85:
        return f"{currency} {number}"
    return f"{number} {currency}"


def _duration(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    parts = [f"{hours} hour{'s' if hours > 1 else ''}"] if hours else []
    if rest:
        parts.append(f"{rest} minute{'s' if rest > 1 else ''}")
    return " and ".join(parts) if len(parts) == 2 and rest < 10 else " ".join(parts)


def _plain(amount: Decimal) -> str:
    """A decimal as a tool-call literal: ``-2400``, ``1249.5``."""
    return f"{amount.normalize():f}"


def _jsonable(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _tool(rng: Random, name: str, args: dict[str, object], result: dict[str, str]) -> str:
    """A tool call as an agent logs it: call syntax in prose, or a JSON tool log line."""
    if rng.random() < 0.3:
        payload = {
            "tool": name,
            "arguments": {k: _jsonable(v) for k, v in args.items()},
            "result": {"status": "success", **result},
        }
        return "Tool log: " + json.dumps(payload, ensure_ascii=False)
    literals = ", ".join(
        f"{k}={_plain(v) if isinstance(v, Decimal) else repr(v)}" for k, v in args.items()
    )
    outcome = "returned success"
    if result:
        outcome += " with " + ", ".join(f"{k}={v!r}" for k, v in result.items())
    prefix = rng.choice(("Tool call: ", "Ran ", "Called ", "Tool call: "))
    return f"{prefix}{name}({literals}) {outcome}."


def _pick(rng: Random, templates: Sequence[str], **values: object) -> str:
    return rng.choice(templates).format(**values)


def _round(amount: Decimal, step: int) -> Decimal:
    return (amount / step).quantize(Decimal(1), ROUND_HALF_UP) * step


def _email_local(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z.]", "", ascii_name.lower().replace(" ", "."))


def _paragraphs(rng: Random, sentences: list[str]) -> str:
    """Join sentences into one or two paragraphs, as notes are typed."""
    if len(sentences) > 5 and rng.random() < 0.35:
        cut = rng.randrange(3, len(sentences) - 1)
        return " ".join(sentences[:cut]) + "\n\n" + " ".join(sentences[cut:])
    return " ".join(sentences)


def _swap(rng: Random, sentences: list[str], i: int) -> None:
    """Sometimes swap two sentences whose order is free: notes don't follow one order."""
    if rng.random() < 0.4:
        sentences[i], sentences[i + 1] = sentences[i + 1], sentences[i]


ASIDE_COUNTS = (0, 1, 1, 2, 2, 3, 4, 6)
"""How many asides a note gets: most a few, some none, some many (longer entries)."""


def _sprinkle(rng: Random, sentences: list[str], pool: Sequence[str]) -> list[str]:
    """Insert a few fact-free asides between the sentences (never before the first)."""
    for aside in rng.sample(pool, min(len(pool), rng.choice(ASIDE_COUNTS))):
        sentences.insert(rng.randrange(1, len(sentences) + 1), aside)
    return sentences
