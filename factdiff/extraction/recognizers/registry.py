"""Which recognizer finds, and which parser reads, each fact type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from factdiff.extraction.recognizers import (
    dates,
    datetimes,
    durations,
    emails_urls,
    fields,
    identifiers,
    money,
    numbers,
    organizations,
    people,
    phones,
    quantities,
    temporal_parsers,
    times,
    toolcalls,
)
from factdiff.extraction.recognizers.base import ExtractionContext, Recognizer
from factdiff.values.base import FactType, Value

RECOGNIZERS: Mapping[FactType, Recognizer] = MappingProxyType(
    {
        FactType.IDENTIFIER: identifiers.IdentifierRecognizer(),
        FactType.EMAIL: emails_urls.EmailRecognizer(),
        FactType.PHONE: phones.PhoneRecognizer(),
        FactType.URL: emails_urls.UrlRecognizer(),
        FactType.PERSON: people.PersonRecognizer(),
        FactType.ORGANIZATION: organizations.OrganizationRecognizer(),
        FactType.NUMBER: numbers.NumberRecognizer(),
        FactType.MONEY: money.MoneyRecognizer(),
        FactType.PERCENT: quantities.PercentRecognizer(),
        FactType.QUANTITY: quantities.QuantityRecognizer(),
        FactType.DATE: dates.DateRecognizer(),
        FactType.TIME: times.TimeRecognizer(),
        FactType.DATETIME: datetimes.DateTimeRecognizer(),
        FactType.DURATION: durations.DurationRecognizer(),
        FactType.TOOL_CALL: toolcalls.ToolCallRecognizer(),
    }
)
"""Schema-free recognizers. Enum, boolean and text values are found per field."""

TEMPORAL_TYPES = frozenset({FactType.DATE, FactType.TIME, FactType.DATETIME, FactType.DURATION})
"""Types whose recognizers depend on the reference date."""

Parser = Callable[[str, ExtractionContext], Value | None]

PARSERS: Mapping[FactType, Parser] = MappingProxyType(
    {
        FactType.IDENTIFIER: identifiers.parse_identifier,
        FactType.EMAIL: emails_urls.parse_email,
        FactType.PHONE: phones.parse_phone,
        FactType.URL: emails_urls.parse_url,
        FactType.PERSON: people.parse_person,
        FactType.ORGANIZATION: organizations.parse_organization,
        FactType.NUMBER: numbers.parse_number,
        FactType.MONEY: money.parse_money,
        FactType.PERCENT: quantities.parse_percent,
        FactType.QUANTITY: quantities.parse_quantity,
        FactType.DATE: temporal_parsers.parse_date,
        FactType.TIME: temporal_parsers.parse_time,
        FactType.DATETIME: temporal_parsers.parse_datetime,
        FactType.DURATION: temporal_parsers.parse_duration,
        FactType.TOOL_CALL: toolcalls.parse_tool_call,
        FactType.BOOLEAN: lambda text, _context: fields.parse_boolean(text),
        FactType.TEXT: lambda text, _context: fields.parse_text(text),
    }
)
"""Whole-string parsers (pattern captures, tool-call arguments, LLM output).

Enum values need their field's options, so the extractor parses them."""

PRIORITY: tuple[FactType, ...] = (
    FactType.DATETIME,
    FactType.EMAIL,
    FactType.URL,
    FactType.DATE,
    FactType.TIME,
    FactType.PHONE,
    FactType.MONEY,
    FactType.PERCENT,
    FactType.DURATION,
    FactType.QUANTITY,
    FactType.IDENTIFIER,
    FactType.ORGANIZATION,
    FactType.PERSON,
    FactType.NUMBER,
)
"""When two matches cover the same span, the type listed first wins."""


def parse_value(fact_type: FactType, text: str, context: ExtractionContext) -> Value | None:
    """Parse one whole value string as ``fact_type``; None if it is not one."""
    parser = PARSERS.get(fact_type)
    return parser(text, context) if parser is not None else None


def detect_decimal_comma(text: str) -> bool:
    """Whether ``text`` writes decimals with a comma (``1.234,56``)."""
    return numbers.detect_decimal_comma(text)
