"""Tool calls: the calls an agent made, with their arguments and results.

A ``ToolCallValue`` has one of two forms:

* ``"call"``: a call with its arguments and (when stated) its result, found as call syntax in
  prose (``invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400) returned success
  with credit_memo_id='CM-3392'``) or as a JSON tool-call log (OpenAI, Anthropic, generic);
* ``"mention"``: a tool name in prose (``the agent ran cancel_pending_order``), kept with the
  sentence around it so that ``missing_parts`` can tell which argument values it states.

Literals are stored as *canonical JSON text*, so the value stays hashable and lossless:
strings as JSON strings (``'"INV-9182"'``), numbers as canonical decimals (``-2400`` and
``-2400.0`` both become ``'-2400'``), ``true``/``false``/``null``, nested lists and dicts as
compact JSON with sorted keys. Positional arguments get the keys ``"0"``, ``"1"``, ...

Results map to key/literal pairs:

* ``returned success`` -> ``{"status": "success"}`` (``ok``, ``succeeded``, ``successful``
  also give ``success``; ``error``, ``failed``, ``failure`` give ``error``);
* ``returned success with credit_memo_id='CM-3392'`` -> status plus ``credit_memo_id``;
* ``returned {json}`` / ``-> {json}`` / ``-> {'python': 'dict'}`` -> the dict's top-level keys;
* ``returned 'text'`` / ``returned 42`` -> ``{"value": ...}``;
* in JSON logs: a ``result``/``output`` key of the call object, a following
  ``{"type": "tool_result", ...}`` or ``{"role": "tool", ...}`` object (matched by id when
  both carry one), or a ``tool: {...}`` line after the call. A result object is flattened:
  top-level scalars as literals, nested values as canonical JSON text; a non-JSON string
  result becomes ``{"value": "..."}``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import ClassVar, Literal, cast

from factdiff.errors import InvalidValue
from factdiff.values.base import (
    EXACT,
    JSON,
    FactType,
    Tolerance,
    Value,
    json_string,
    register_decoder,
)

__all__ = [
    "ToolCallForm",
    "ToolCallValue",
    "missing_parts",
]

ToolCallForm = Literal["call", "mention"]
_FORMS: dict[str, ToolCallForm] = {"call": "call", "mention": "mention"}

_MAX_JSON_CHARS = 1_000_000
"""JSON objects larger than this are skipped (still excluded from mention search)."""
_MAX_JSON_ATTEMPTS = 50_000
_MAX_CALL_CHARS = 20_000
_MAX_DEPTH = 40
_MAX_CONTEXT = 400
_MAX_NUMBER_TEXT = 100
_RESULT_WINDOW = 2_000


class _Reject(Exception):
    """Internal: the input is not a literal this module accepts."""


# --------------------------------------------------------------------------- literals


def _canon_number(number: Decimal) -> str:
    """Canonical decimal text: no exponent, no trailing zeros (``-2400.0`` -> ``-2400``)."""
    if not number.is_finite():
        raise _Reject("non-finite number")
    if number == 0:
        return "0"
    text = format(number.normalize(), "f")
    return json.dumps(text) if len(text) > _MAX_NUMBER_TEXT else text


def _encode(obj: object, depth: int = 0) -> str:
    """Canonical JSON literal text of a Python value (numbers as canonical decimals)."""
    if depth > _MAX_DEPTH:
        raise _Reject("too deep")
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "true" if obj else "false"
    if isinstance(obj, int | Decimal):
        return _canon_number(Decimal(obj))
    if isinstance(obj, float):
        return _canon_number(Decimal(repr(obj)))
    if isinstance(obj, str):
        return json_string(obj)
    if isinstance(obj, list | tuple):
        return "[" + ",".join(_encode(item, depth + 1) for item in obj) + "]"
    if isinstance(obj, dict):
        pairs = sorted((_key_text(k), _encode(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(json_string(k) + ":" + v for k, v in pairs) + "}"
    raise _Reject(f"unsupported literal {type(obj).__name__}")


def _key_text(key: object) -> str:
    """A dict key as text (numeric keys in their canonical form)."""
    if isinstance(key, str):
        return key
    encoded = _encode(key)
    return cast(str, json.loads(encoded)) if encoded.startswith('"') else encoded


def _decode(literal: str) -> JSON:
    """The JSON value of a canonical literal (for display)."""
    try:
        decoded: JSON = json.loads(literal)
        return decoded
    except ValueError:
        return literal


def _encode_items(mapping: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """Sorted ``(key, literal)`` pairs of a mapping."""
    return tuple(sorted((str(k), _encode(v)) for k, v in mapping.items()))


def _number_of(literal: str) -> Decimal | None:
    """The number a literal states: a number literal or a string holding a plain number."""
    text = literal
    if literal.startswith('"'):
        decoded = _decode(literal)
        if not isinstance(decoded, str):
            return None
        text = decoded.strip().replace(",", "")
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")


def _literals_equal(a: str, b: str, tolerance: Tolerance) -> bool:
    """Literal equality; numbers (and numeric strings) compare under ``tolerance``."""
    if a == b:
        return True
    num_a, num_b = _number_of(a), _number_of(b)
    if num_a is None or num_b is None:
        return False
    return tolerance.numbers_close(num_a, num_b)


# --------------------------------------------------------------------------- the value


@dataclass(frozen=True)
class ToolCallValue(Value):
    """One tool call (``form="call"``) or one mention of a tool name (``form="mention"``).

    ``arguments`` and ``result`` are sorted ``(key, canonical JSON literal)`` pairs;
    ``context`` is the surface text (a call) or the sentences around a mention.
    """

    type: ClassVar[FactType] = FactType.TOOL_CALL

    name: str
    arguments: tuple[tuple[str, str], ...] = ()
    result: tuple[tuple[str, str], ...] = ()
    form: ToolCallForm = "call"
    context: str = ""

    def __post_init__(self) -> None:
        if self.form not in ("call", "mention"):
            raise InvalidValue(f"unknown tool call form {self.form!r}")
        object.__setattr__(self, "arguments", tuple(sorted(self.arguments)))
        object.__setattr__(self, "result", tuple(sorted(self.result)))

    @classmethod
    def build(
        cls,
        name: str,
        arguments: Mapping[str, object] | None = None,
        result: Mapping[str, object] | None = None,
        *,
        context: str = "",
    ) -> ToolCallValue:
        """A call from plain Python values; raises ``InvalidValue`` on unsupported literals."""
        try:
            return cls(
                name=name,
                arguments=_encode_items(arguments or {}),
                result=_encode_items(result or {}),
                context=context,
            )
        except (_Reject, RecursionError) as exc:
            raise InvalidValue(str(exc)) from None

    def unstated_parts(self, other: Value) -> list[str] | None:
        """``missing_parts(self, other)`` when ``other`` is a tool call, else None."""
        return missing_parts(self, other) if isinstance(other, ToolCallValue) else None

    @property
    def is_mention(self) -> bool:
        """A tool name mentioned in prose rather than a call."""
        return self.form == "mention"

    def canonical(self) -> JSON:
        """``{"name", "arguments", "result"}`` for a call, ``{"name", "mention": true}``."""
        if self.form == "mention":
            return {"name": self.name, "mention": True}
        return {
            "name": self.name,
            "arguments": {k: _decode(v) for k, v in self.arguments},
            "result": {k: _decode(v) for k, v in self.result},
        }

    def key(self) -> object:
        """Form, case-folded name, and (for calls) the canonical arguments and result."""
        if self.form == "mention":
            return ("mention", self.name.casefold())
        return ("call", self.name.casefold(), self.arguments, self.result)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        """Calls: same name, argument and result keys, literals equal (numbers within
        ``tolerance``). Mentions: same name. A call and a mention: the mention states
        every part of the call (``missing_parts`` is empty)."""
        if not isinstance(other, ToolCallValue):
            return False
        if self.name.casefold() != other.name.casefold():
            return False
        if self.form == "mention" and other.form == "mention":
            return True
        if self.form != other.form:
            call, mention = (self, other) if self.form == "call" else (other, self)
            return missing_parts(call, mention) == []
        return _pairs_equal(self.arguments, other.arguments, tolerance) and _pairs_equal(
            self.result, other.result, tolerance
        )

    def to_json(self) -> dict[str, JSON]:
        """Tagged lossless form."""
        return {
            "type": FactType.TOOL_CALL.value,
            "name": self.name,
            "form": self.form,
            "arguments": [[k, v] for k, v in self.arguments],
            "result": [[k, v] for k, v in self.result],
            "context": self.context,
        }

    def display(self) -> str:
        """``name(k=literal, ...) -> {k: literal}`` for a call; the name for a mention."""
        if self.form == "mention":
            return f"{self.name} (mention)"
        args = ", ".join(f"{k}={v}" for k, v in self.arguments)
        text = f"{self.name}({args})"
        if self.result:
            text += " -> {" + ", ".join(f"{k}: {v}" for k, v in self.result) + "}"
        return text


def _pairs_equal(
    a: tuple[tuple[str, str], ...], b: tuple[tuple[str, str], ...], tolerance: Tolerance
) -> bool:
    """Same keys, and literals equal under ``tolerance``."""
    if [k for k, _ in a] != [k for k, _ in b]:
        return False
    return all(_literals_equal(x, y, tolerance) for (_, x), (_, y) in zip(a, b, strict=True))


def _pairs_from_json(raw: JSON, field: str) -> tuple[tuple[str, str], ...]:
    """Validate a ``[[key, literal], ...]`` list from ``to_json`` output."""
    if not isinstance(raw, list):
        raise InvalidValue(f"tool_call {field} must be a list")
    pairs: list[tuple[str, str]] = []
    for item in raw:
        match item:
            case [str() as key, str() as literal]:
                pairs.append((key, literal))
            case _:
                raise InvalidValue(f"tool_call {field} items must be [key, literal] string pairs")
    return tuple(pairs)


@register_decoder(FactType.TOOL_CALL.value)
def _decode_tool_call(data: dict[str, JSON]) -> ToolCallValue:
    """Rebuild a ``ToolCallValue`` from ``to_json()`` output."""
    name, form, context = data.get("name"), data.get("form", "call"), data.get("context", "")
    if not isinstance(name, str) or not isinstance(context, str):
        raise InvalidValue("tool_call needs a string name and context")
    kind = _FORMS.get(form) if isinstance(form, str) else None
    if kind is None:
        raise InvalidValue(f"unknown tool call form {form!r}")
    return ToolCallValue(
        name=name,
        arguments=_pairs_from_json(data.get("arguments", []), "arguments"),
        result=_pairs_from_json(data.get("result", []), "result"),
        form=kind,
        context=context,
    )


# --------------------------------------------------------------------------- coverage

_NON_ALNUM = re.compile(r"[\W_]+")
_CONTEXT_NUMBER = re.compile(
    r"(?<![\w.,/])(?<!\w-)(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    r"(?:\s?(?P<scale>k|thousand|million|mn|m|billion|bn)\b)?",
    re.IGNORECASE,
)
_SCALES = {
    "k": 1_000,
    "thousand": 1_000,
    "m": 1_000_000,
    "mn": 1_000_000,
    "million": 1_000_000,
    "bn": 1_000_000_000,
    "billion": 1_000_000_000,
}
_WORDS_FOR = {
    "true": ("true", "yes"),
    "false": ("false",),
    "null": ("null", "none"),
    '"success"': ("success", "successful", "successfully", "succeeded", "ok"),
    '"error"': ("error", "failed", "failure", "fail", "errored"),
}


def _normalise_words(text: str) -> str:
    """Case-folded words separated by single spaces (``_``, ``-``, punctuation -> space)."""
    return " " + _NON_ALNUM.sub(" ", text.casefold()).strip() + " "


def _context_numbers(context: str) -> set[Decimal]:
    """Absolute values of the numbers written in ``context`` (``$2,400``, ``2.4k``)."""
    found: set[Decimal] = set()
    for match in _CONTEXT_NUMBER.finditer(context):
        digits = match.group(0)
        scale = match.group("scale")
        if scale:
            digits = digits[: match.start("scale") - match.start()].strip()
        try:
            number = Decimal(digits.replace(",", ""))
        except InvalidOperation:
            continue
        found.add(number * _SCALES[scale.lower()] if scale else number)
    return found


class _Coverage:
    """Which literals a mention's context states."""

    def __init__(self, context: str) -> None:
        self.words = _normalise_words(context)
        self.numbers = _context_numbers(context)

    def states(self, literal: str, depth: int = 0) -> bool:
        """Strings as words, numbers in any common format (sign ignored), keywords by word;
        nested values when every scalar inside is stated."""
        if literal in _WORDS_FOR:
            return any(f" {word} " in self.words for word in _WORDS_FOR[literal])
        number = _number_of(literal)
        if number is not None and abs(number) in self.numbers:
            return True
        value = _decode(literal)
        if isinstance(value, str):
            words = _normalise_words(value)
            return words == "  " or words in self.words
        if isinstance(value, int | float):
            return False
        if isinstance(value, list | dict) and depth < _MAX_DEPTH:
            items = value.values() if isinstance(value, dict) else value
            return all(self.states(_encode(item), depth + 1) for item in items)
        return False


def missing_parts(source: ToolCallValue, summary: ToolCallValue) -> list[str] | None:
    """Paths (``arguments.<key>``, ``result.<key>``) of ``source`` the summary does not state.

    ``None`` when the names differ (not the same call). Against a call, a part is stated when
    the summary has the same key with an equal literal. Against a mention, when its context
    states the value: strings case-folded with ``_``/``-``/punctuation read as spaces, numbers
    by absolute value in any common format (``-2400`` is stated by ``-$2,400``, ``$2,400
    credit`` and ``2400 USD``), ``true``/``false``/``null`` and the ``success``/``error``
    status by their words.
    """
    if source.name.casefold() != summary.name.casefold():
        return None
    parts = [("arguments", k, v) for k, v in source.arguments]
    parts += [("result", k, v) for k, v in source.result]
    if summary.form == "call":
        stated = {("arguments", k): v for k, v in summary.arguments}
        stated.update({("result", k): v for k, v in summary.result})
        return [
            f"{group}.{key}"
            for group, key, literal in parts
            if (group, key) not in stated or not _literals_equal(literal, stated[group, key], EXACT)
        ]
    coverage = _Coverage(summary.context)
    return [f"{group}.{key}" for group, key, literal in parts if not coverage.states(literal)]
