"""Which recognizer finds, and which parser reads, each fact type."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from factdiff.values import contact, fieldtypes, names, numeric, temporal, toolcall
from factdiff.values.base import ExtractionContext, FactType, Recognizer, Value

RECOGNIZERS: Mapping[FactType, Recognizer] = MappingProxyType(
    {
        FactType.IDENTIFIER: contact.IdentifierRecognizer(),
        FactType.EMAIL: contact.EmailRecognizer(),
        FactType.PHONE: contact.PhoneRecognizer(),
        FactType.URL: contact.UrlRecognizer(),
        FactType.PERSON: names.PersonRecognizer(),
        FactType.ORGANIZATION: names.OrganizationRecognizer(),
        FactType.NUMBER: numeric.NumberRecognizer(),
        FactType.MONEY: numeric.MoneyRecognizer(),
        FactType.PERCENT: numeric.PercentRecognizer(),
        FactType.QUANTITY: numeric.QuantityRecognizer(),
        FactType.DATE: temporal.DateRecognizer(),
        FactType.TIME: temporal.TimeRecognizer(),
        FactType.DATETIME: temporal.DateTimeRecognizer(),
        FactType.DURATION: temporal.DurationRecognizer(),
        FactType.TOOL_CALL: toolcall.ToolCallRecognizer(),
    }
)
"""Schema-free recognizers. Enum, boolean and text values are found per field."""

TEMPORAL_TYPES = frozenset({FactType.DATE, FactType.TIME, FactType.DATETIME, FactType.DURATION})
"""Types whose recognizers depend on the reference date."""

Parser = Callable[[str, ExtractionContext], Value | None]

PARSERS: Mapping[FactType, Parser] = MappingProxyType(
    {
        FactType.IDENTIFIER: contact.parse_identifier,
        FactType.EMAIL: contact.parse_email,
        FactType.PHONE: contact.parse_phone,
        FactType.URL: contact.parse_url,
        FactType.PERSON: names.parse_person,
        FactType.ORGANIZATION: names.parse_organization,
        FactType.NUMBER: numeric.parse_number,
        FactType.MONEY: numeric.parse_money,
        FactType.PERCENT: numeric.parse_percent,
        FactType.QUANTITY: numeric.parse_quantity,
        FactType.DATE: temporal.parse_date,
        FactType.TIME: temporal.parse_time,
        FactType.DATETIME: temporal.parse_datetime,
        FactType.DURATION: temporal.parse_duration,
        FactType.TOOL_CALL: toolcall.parse_tool_call,
        FactType.BOOLEAN: lambda text, _context: fieldtypes.parse_boolean(text),
        FactType.TEXT: lambda text, _context: fieldtypes.parse_text(text),
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
    return numeric.detect_decimal_comma(text)
