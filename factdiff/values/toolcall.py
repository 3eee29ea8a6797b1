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

import ast
import bisect
import contextlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import ClassVar, Literal, cast

from factdiff.values.base import (
    EXACT,
    JSON,
    ExtractionContext,
    FactType,
    Match,
    Tolerance,
    Value,
    register_decoder,
)

__all__ = [
    "ToolCallForm",
    "ToolCallRecognizer",
    "ToolCallValue",
    "missing_parts",
    "parse_tool_call",
]

ToolCallForm = Literal["call", "mention"]

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
        return json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, list | tuple):
        return "[" + ",".join(_encode(item, depth + 1) for item in obj) + "]"
    if isinstance(obj, dict):
        pairs = sorted((_key_text(k), _encode(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + v for k, v in pairs) + "}"
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
        return json.loads(literal)
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
            raise ValueError(f"unknown tool call form {self.form!r}")
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
        """A call from plain Python values; raises ``ValueError`` on unsupported literals."""
        try:
            return cls(
                name=name,
                arguments=_encode_items(arguments or {}),
                result=_encode_items(result or {}),
                context=context,
            )
        except (_Reject, RecursionError) as exc:
            raise ValueError(str(exc)) from None

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
        raise ValueError(f"tool_call {field} must be a list")
    pairs: list[tuple[str, str]] = []
    for item in raw:
        if not (
            isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)
        ):
            raise ValueError(f"tool_call {field} items must be [key, literal] string pairs")
        pairs.append((item[0], item[1]))
    return tuple(pairs)


@register_decoder(FactType.TOOL_CALL.value)
def _decode_tool_call(data: dict[str, JSON]) -> ToolCallValue:
    """Rebuild a ``ToolCallValue`` from ``to_json()`` output."""
    name, form, context = data.get("name"), data.get("form", "call"), data.get("context", "")
    if not isinstance(name, str) or not isinstance(context, str):
        raise ValueError("tool_call needs a string name and context")
    if form not in ("call", "mention"):
        raise ValueError(f"unknown tool call form {form!r}")
    return ToolCallValue(
        name=name,
        arguments=_pairs_from_json(data.get("arguments", []), "arguments"),
        result=_pairs_from_json(data.get("result", []), "result"),
        form=form,
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


# --------------------------------------------------------------------------- call syntax

_CALL_START = re.compile(r"(?<![\w.])(?>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")
_BRACKETS = re.compile(
    r"""[()\[\]{}]|'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|['"]"""
)
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_JSON_NAMES: dict[str, object] = {
    "true": True,
    "false": False,
    "null": None,
    "none": None,
    "True": True,
    "False": False,
    "None": None,
}


def _closing(text: str, start: int) -> tuple[int | None, int]:
    """End (exclusive) of the bracket group opening at ``text[start]``, skipping strings,
    or None; and how far the scan went (its cost)."""
    stack: list[str] = []
    limit = min(len(text), start + _MAX_CALL_CHARS)
    for token in _BRACKETS.finditer(text, start, limit):
        tok = token.group(0)
        if tok in "([{":
            stack.append(tok)
        elif tok in _CLOSERS:
            if not stack or stack.pop() != _CLOSERS[tok]:
                return None, token.end()
            if not stack:
                return token.end(), token.end()
        elif len(tok) == 1:
            return None, token.end()  # unterminated quote
    return None, limit


def _from_ast(node: ast.expr, depth: int = 0) -> object:
    """A literal from an AST node; anything but literals raises ``_Reject``."""
    if depth > _MAX_DEPTH:
        raise _Reject("too deep")
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int | float):
            return Decimal(value) if isinstance(value, int) else Decimal(repr(value))
        raise _Reject("unsupported constant")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _from_ast(node.operand, depth + 1)
        if not isinstance(inner, Decimal) or not isinstance(node.operand, ast.Constant):
            raise _Reject("sign on a non-number")
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_from_ast(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, object] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                raise _Reject("dict unpacking")
            result[_key_text(_from_ast(key_node, depth + 1))] = _from_ast(value_node, depth + 1)
        return result
    raise _Reject(f"not a literal: {type(node).__name__}")


def _dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _parse_call_expr(source: str) -> tuple[str, dict[str, object]] | None:
    """Name and arguments of one ``name(args)`` expression with literal arguments only."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call):
        return None
    name = _dotted_name(call.func)
    if name is None:
        return None
    arguments: dict[str, object] = {}
    try:
        for index, arg in enumerate(call.args):
            arguments[str(index)] = _from_ast(arg)
        for keyword in call.keywords:
            if keyword.arg is None:
                return None
            arguments[keyword.arg] = _from_ast(keyword.value)
    except (_Reject, RecursionError, InvalidOperation, ValueError, OverflowError):
        return None
    if not (("." in name or "_" in name.strip("_")) or call.keywords):
        return None
    return name, arguments


_RESULT_LEAD = re.compile(
    r"[ \t]*,?[ \t]*(?:(?:and|which|it|that)[ \t]+)?"
    r"(?:->|=>|→|returned|returns|returning|responded[ \t]+with|resulted[ \t]+in|result:|gave)"
    r"[ \t]*:?[ \t]*",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"(?:an?[ \t]+)?(success(?:ful(?:ly)?)?|succeeded|ok|okay|error|fail(?:ed|ure)?)\b",
    re.IGNORECASE,
)
_STATUS_NORMAL = {"error": "error", "fail": "error", "failed": "error", "failure": "error"}
_VALUE_TOKEN = (
    r"'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'|\"[^\"\\\n]*+(?:\\.[^\"\\\n]*+)*+\""
    r"|[-+]?\d+(?:\.\d+)?(?![\w-])|[\w#@.\-/:]+"
)
_PAIR = re.compile(r"(?P<key>[A-Za-z_]\w*)[ \t]*[=:][ \t]*(?P<value>" + _VALUE_TOKEN + ")")
_PAIR_SEP = re.compile(r"[ \t]*(?:,[ \t]*(?:and[ \t]+)?|[ \t]+and[ \t]+)")
_WITH = re.compile(r"[ \t]*(?:,[ \t]*)?(?:with|:|,)[ \t]*")
_SCALAR = re.compile(_VALUE_TOKEN)


def _token_value(token: str) -> object:
    """A literal from one result token: quoted string, number, keyword or bare word."""
    if token[:1] in "'\"":
        try:
            return ast.literal_eval(token)
        except (SyntaxError, ValueError):
            return token[1:-1]
    if token in _JSON_NAMES:
        return _JSON_NAMES[token]
    if _PLAIN_NUMBER.fullmatch(token):
        try:
            return Decimal(token)
        except InvalidOperation:
            return token
    return token.rstrip(".,;:")


def _literal_dict(text: str, start: int) -> tuple[dict[str, object], int] | None:
    """A JSON object or Python dict literal starting at ``text[start]``."""
    end, _ = _closing(text, start)
    if end is None:
        return None
    segment = text[start:end]
    try:
        obj = _JSON.decode(segment)
    except (ValueError, RecursionError):
        try:
            tree = ast.parse(segment, mode="eval")
            obj = _from_ast(tree.body)
        except (SyntaxError, ValueError, RecursionError, MemoryError, _Reject):
            return None
    return (cast(dict[str, object], obj), end) if isinstance(obj, dict) else None


def _parse_result(text: str, pos: int) -> tuple[dict[str, object], int] | None:
    """The result clause right after a call (``returned success with x='y'``), if any."""
    lead = _RESULT_LEAD.match(text, pos)
    if lead is None:
        return None
    at = lead.end()
    if text.startswith("{", at):
        return _literal_dict(text, at)
    result: dict[str, object] = {}
    status = _STATUS.match(text, at)
    if status is not None:
        word = status.group(1).lower()
        result["status"] = _STATUS_NORMAL.get(word, "success")
        at = status.end()
        link = _WITH.match(text, at)
        if link is None or not _PAIR.match(text, link.end()):
            return result, at
        at = link.end()
    if _PAIR.match(text, at):
        return _parse_pairs(text, at, result)
    if result:
        return result, at
    scalar = _SCALAR.match(text, at)
    if scalar is None or scalar.group(0)[:1] not in "'\"-+0123456789":
        return None
    return {"value": _token_value(scalar.group(0))}, scalar.end()


_RESULT_LINE = re.compile(
    r"[ \t]*\r?\n[ \t]*(?:tool|function|observation|tool[_ ]result|tool[_ ]output)"
    r"[ \t]*:[ \t]*(?=\{)",
    re.IGNORECASE,
)


def _result_line(text: str, pos: int) -> tuple[dict[str, object], int] | None:
    """A ``tool: {json}`` line right after a call."""
    line = _RESULT_LINE.match(text, pos)
    if line is None:
        return None
    obj, end, _ = _decode_at(text, line.end())
    return (_flatten_result(obj), end) if isinstance(obj, dict) else None


def _parse_pairs(text: str, at: int, result: dict[str, object]) -> tuple[dict[str, object], int]:
    """``key=value`` pairs separated by commas or ``and``."""
    end = at
    while (pair := _PAIR.match(text, at)) is not None and len(result) < 100:
        result[pair.group("key")] = _token_value(pair.group("value"))
        end = pair.end()
        separator = _PAIR_SEP.match(text, end)
        if separator is None:
            break
        at = separator.end()
    return result, end


# --------------------------------------------------------------------------- JSON logs

_JSON = json.JSONDecoder(parse_float=Decimal, strict=False)
_TOOL_NAME = re.compile(r"[A-Za-z_][\w.\-/:]{0,127}")
_NAME_KEYS = ("name", "tool", "tool_name", "function", "recipient_name")
_ARG_KEYS = ("arguments", "args", "kwargs", "parameters", "params", "input")
_RESULT_KEYS = ("result", "output", "response", "observation")
_RESULT_PREFIX = re.compile(
    r"(?:^|\n)[ \t]*(?:tool|function|observation|tool[_ ]result|tool[_ ]output)[ \t]*:[ \t]*\Z",
    re.IGNORECASE,
)


@dataclass
class _Found:
    """A call found in a JSON log, before its result is attached."""

    start: int
    end: int
    name: str
    arguments: dict[str, object]
    result: dict[str, object] | None
    call_id: str | None


def _arguments_of(raw: object) -> dict[str, object] | None:
    """Arguments as a dict: a dict, a JSON string holding one, or a positional list."""
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        if len(raw) > _MAX_JSON_CHARS:
            return None
        try:
            raw = _JSON.decode(raw)
        except (ValueError, RecursionError):
            return None
    if isinstance(raw, dict):
        return {str(k): v for k, v in raw.items()}
    if isinstance(raw, list):
        return {str(i): v for i, v in enumerate(raw)}
    return None


def _call_of(obj: object) -> tuple[str, dict[str, object], dict[str, object] | None, str | None]:
    """(name, arguments, result, id) when ``obj`` is a tool-call object; raises ``_Reject``."""
    if not isinstance(obj, dict):
        raise _Reject("not an object")
    function = obj.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        inner = _call_of(function)
        return inner[0], inner[1], inner[2], _id_of(obj, ("id", "call_id"))
    found = next((v for k in _NAME_KEYS if isinstance(v := obj.get(k), str)), None)
    if found is None or not _TOOL_NAME.fullmatch(found):
        raise _Reject("no tool name")
    name = found
    arg_key = next((k for k in _ARG_KEYS if k in obj), None)
    if arg_key is None:
        if obj.get("type") not in ("tool_use", "function_call", "tool_call"):
            raise _Reject("no arguments")
        arguments: dict[str, object] | None = {}
    else:
        arguments = _arguments_of(obj[arg_key])
    if arguments is None:
        raise _Reject("bad arguments")
    result_key = next((k for k in _RESULT_KEYS if k in obj), None)
    result = _flatten_result(obj[result_key]) if result_key else None
    return name, arguments, result, _id_of(obj, ("id", "call_id", "tool_call_id"))


def _id_of(obj: dict[str, object], keys: tuple[str, ...]) -> str | None:
    """The first string id under ``keys``."""
    return next((v for k in keys if isinstance(v := obj.get(k), str)), None)


def _tool_result_of(obj: object) -> tuple[dict[str, object], str | None] | None:
    """(result, id) when ``obj`` is a typed tool-result object."""
    if not isinstance(obj, dict):
        return None
    typed = obj.get("type") in ("tool_result", "function_call_output")
    if not typed and obj.get("role") not in ("tool", "function"):
        return None
    payload = next((obj[k] for k in ("content", "output", "result") if k in obj), None)
    result = _flatten_result(payload)
    if obj.get("is_error") is True:
        result.setdefault("status", "error")
    return result, _id_of(obj, ("tool_use_id", "tool_call_id", "call_id"))


def _flatten_result(payload: object) -> dict[str, object]:
    """A result payload as a flat dict (text blocks joined, JSON text decoded)."""
    if isinstance(payload, list) and all(
        isinstance(b, dict) and isinstance(b.get("text"), str) for b in payload
    ):
        payload = "\n".join(cast(str, cast(dict[str, object], b)["text"]) for b in payload)
    if (
        isinstance(payload, str)
        and payload.lstrip().startswith("{")
        and len(payload) <= _MAX_JSON_CHARS
    ):
        with contextlib.suppress(ValueError, RecursionError):
            payload = _JSON.decode(payload)
    if payload is None:
        return {}
    if isinstance(payload, dict):
        return {str(k): v for k, v in payload.items()}
    return {"value": payload}


def _has_nested_log(obj: object) -> bool:
    """True when a call or tool result sits somewhere inside ``obj`` (bounded walk)."""
    stack, seen = [obj], 0
    while stack and seen < 10_000:
        item = stack.pop()
        seen += 1
        if isinstance(item, dict):
            if _tool_result_of(item) is not None or _is_call(item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _is_call(obj: object) -> bool:
    """True when ``obj`` is a tool-call object."""
    try:
        _call_of(obj)
    except (_Reject, RecursionError):
        return False
    return True


def _attach(found: list[_Found], result: dict[str, object], call_id: str | None, at: int) -> None:
    """Give ``result`` to the call with ``call_id``, or to the last call without a result."""
    for call in reversed(found):
        if call_id is not None and call.call_id is not None:
            if call.call_id == call_id and call.result is None:
                call.result = result
                return
            continue
        if call.result is None and at - call.end <= _RESULT_WINDOW:
            call.result = result
        return


def _decode_at(text: str, pos: int) -> tuple[object, int, int]:
    """Decode the JSON value at ``pos``: (value or ``_FAILED``, end, cost in chars read).

    Decodes growing windows, not ``text`` itself: a ``JSONDecodeError`` counts the lines
    before its position, which would make a scan of many ``{`` quadratic.
    """
    size, cost = 4_096, 0
    while True:
        window = text[pos : pos + size]
        try:
            obj, end = _JSON.raw_decode(window)
        except json.JSONDecodeError as exc:
            cut = pos + len(window) < len(text) and (
                exc.pos >= len(window) - 8 or exc.msg.startswith("Unterminated string")
            )
            if not cut or size > _MAX_JSON_CHARS:
                return _FAILED, pos, cost + exc.pos + 16
            cost += len(window)
            size *= 4
        except (ValueError, RecursionError):
            return _FAILED, pos, cost + _MAX_CALL_CHARS  # deep nesting: charge generously
        else:
            return obj, pos + end, cost + end


_FAILED = object()


def _scan_json(text: str) -> tuple[list[_Found], list[tuple[int, int]]]:
    """Calls found in JSON objects of ``text``, and the spans of all decoded objects."""
    found: list[_Found] = []
    covered: list[tuple[int, int]] = []
    budget = 4 * len(text) + 65_536
    attempts = 0
    pos = text.find("{")
    while pos != -1 and attempts < _MAX_JSON_ATTEMPTS and budget > 0:
        attempts += 1
        obj, end, cost = _decode_at(text, pos)
        budget -= cost
        if obj is _FAILED:
            pos = text.find("{", pos + 1)
            continue
        if not covered or covered[-1][1] <= pos:
            covered.append((pos, end))
        pos = _handle_object(text, obj, pos, end, found)
    return found, covered


def _handle_object(text: str, obj: object, start: int, end: int, found: list[_Found]) -> int:
    """Record a call or attach a result; return where scanning continues."""
    try:
        name, arguments, result, call_id = _call_of(obj)
    except (_Reject, RecursionError):
        pass
    else:
        found.append(_Found(start, end, name, arguments, result, call_id))
        return text.find("{", end)
    typed = _tool_result_of(obj)
    if typed is not None:
        _attach(found, typed[0], typed[1], start)
        return text.find("{", end)
    if isinstance(obj, dict) and _RESULT_PREFIX.search(text, max(0, start - 40), start):
        _attach(found, _flatten_result(obj), None, start)
        return text.find("{", end)
    if _has_nested_log(obj):
        return text.find("{", start + 1)
    return text.find("{", end)


# --------------------------------------------------------------------------- mentions

_MENTION = re.compile(
    r"(?<![\w.@#$/\\\-])(?>[a-z][a-z0-9]*(?:[._][a-z0-9]+)+)(?![\w@(\-]|\.\w|/|:/)"
)
_VERBS = frozenset(
    """get set list find search lookup fetch retrieve query read load create add insert make
    update modify edit change patch put post delete remove cancel void refund return
    exchange transfer send notify book reserve schedule reschedule confirm check verify
    validate calculate compute convert apply issue adjust charge pay process submit approve
    reject open close run execute invoke start stop think escalate assign upload download
    generate sync track ship purchase place lock unlock reset resolve record log""".split()  # noqa: SIM905
)
_CUE_BEFORE = re.compile(
    r"\b(?:tool|function|api|endpoint|called|calls|call|calling|invoked|invoke|ran|run|using|"
    r"via|executed|used)\W{1,3}\Z",
    re.IGNORECASE,
)
_CUE_AFTER = re.compile(r"\W{1,3}(?:tool|function|call|api|endpoint|action)\b", re.IGNORECASE)
_NOT_TOOL_SUFFIXES = frozenset(
    """com org net edu gov io co uk de fr us info biz app dev ai txt pdf csv json yaml yml
    xml html htm md py js ts java rb go rs c h cpp jpg jpeg png gif svg zip gz tar log doc
    docx xls xlsx ppt pptx exe sh ini cfg toml""".split()  # noqa: SIM905
)
_BOUNDARY = re.compile(r"[.!?](?=\s)|\n")


def _looks_like_tool(text: str, start: int, end: int) -> bool:
    """True for names shaped like tools, not domains, files, IDs or prose typos.

    No all-digit part (``credit_card_9513926`` is an ID); a dotted name needs parts of two or
    more letters, no domain or file suffix, and (like a snake_case name) either a part led by
    a verb (``invoice.adjust``, ``get_order``), three or more parts, or a cue word next to it
    (``the order_lookup tool``, ``via order_lookup``).
    """
    name = text[start:end]
    parts = re.split(r"[._]", name)
    if any(part.isdigit() for part in parts):
        return False
    if "." in name:
        dotted = name.split(".")
        if len(min(dotted, key=len)) < 2 or dotted[-1] in _NOT_TOOL_SUFFIXES:
            return False
        if dotted[0] == "www":
            return False
        if len(dotted) >= 3 or "_" in name:
            return True
    if any(segment.split("_")[0] in _VERBS for segment in name.split(".")):
        return True
    return bool(_CUE_BEFORE.search(text, max(0, start - 20), start) or _CUE_AFTER.match(text, end))


def _mention_context(text: str, start: int, end: int) -> str:
    """The sentence holding ``text[start:end]`` and the next one, at most ~400 chars."""
    lo = max(0, start - _MAX_CONTEXT // 2)
    begin = lo
    for boundary in _BOUNDARY.finditer(text, lo, start):
        begin = boundary.end()
    hi = min(len(text), begin + _MAX_CONTEXT)
    stop, ends = hi, 0
    for boundary in _BOUNDARY.finditer(text, end, hi):
        ends += 1
        stop = boundary.end()
        if ends == 2:
            break
    if ends < 2:
        stop = hi if ends == 0 or hi == len(text) else stop
    return text[begin:stop].strip()


def _inside(covered: list[tuple[int, int]], start: int, end: int) -> bool:
    """True when ``[start, end)`` overlaps a covered span (spans sorted, disjoint)."""
    index = bisect.bisect_right(covered, (start, 1 << 62)) - 1
    if index >= 0 and covered[index][1] > start:
        return True
    return index + 1 < len(covered) and covered[index + 1][0] < end


# --------------------------------------------------------------------------- public API


def _value(
    name: str, arguments: Mapping[str, object], result: Mapping[str, object] | None, context: str
) -> ToolCallValue | None:
    """A call value, or None when a literal cannot be encoded."""
    try:
        return ToolCallValue(
            name=name,
            arguments=_encode_items(arguments),
            result=_encode_items(result or {}),
            context=context[:_MAX_CONTEXT],
        )
    except (_Reject, RecursionError, ValueError):
        return None


def _syntax_call(text: str, start: int) -> tuple[ToolCallValue | None, int]:
    """The call-syntax call whose name starts at ``start`` and its end (result included);
    without a call, None and how far the attempt read."""
    opening = text.find("(", start)
    close, reached = _closing(text, opening)
    if close is None:
        return None, reached
    parsed = _parse_call_expr(text[start:close])
    if parsed is None:
        return None, close
    result = _parse_result(text, close) or _result_line(text, close)
    end = result[1] if result else close
    return _value(parsed[0], parsed[1], result[0] if result else None, text[start:end]), end


class ToolCallRecognizer:
    """Finds tool calls (call syntax and JSON logs) and tool-name mentions in a text."""

    fact_type: FactType = FactType.TOOL_CALL

    def __init__(self, *, mentions: bool = True) -> None:
        self.mentions = mentions

    def find(self, text: str, context: ExtractionContext) -> Iterator[Match]:
        """Yield calls and mentions in text order. Never raises."""
        try:
            matches = self._find(text)
        except (RecursionError, MemoryError, ValueError):  # pragma: no cover - defensive
            matches = []
        yield from sorted(matches, key=lambda m: (m.start, m.end))

    def _find(self, text: str) -> list[Match]:
        found, covered = _scan_json(text)
        matches: list[Match] = []
        for call in found:
            value = _value(call.name, call.arguments, call.result, text[call.start : call.end])
            if value is not None:
                matches.append(Match(call.start, call.end, value))
        matches.extend(self._syntax_calls(text, covered))
        if self.mentions:
            spans = sorted(covered + [(m.start, m.end) for m in matches])
            merged: list[tuple[int, int]] = []
            for span in spans:
                if merged and span[0] < merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], span[1]))
                else:
                    merged.append(span)
            matches.extend(self._mentions(text, merged))
        return matches

    def _syntax_calls(self, text: str, covered: list[tuple[int, int]]) -> Iterator[Match]:
        after, budget = 0, 2 * len(text) + 65_536
        for candidate in _CALL_START.finditer(text):
            start = candidate.start()
            if budget <= 0:
                return
            if start < after or _inside(covered, start, candidate.end()):
                continue
            value, end = _syntax_call(text, start)
            budget -= 2 * (end - start)
            if value is not None:
                after = end
                yield Match(start, end, value)

    def _mentions(self, text: str, covered: list[tuple[int, int]]) -> Iterator[Match]:
        for found in _MENTION.finditer(text):
            start, end = found.span()
            if _inside(covered, start, end) or not _looks_like_tool(text, start, end):
                continue
            value = ToolCallValue(
                name=found.group(0), form="mention", context=_mention_context(text, start, end)
            )
            yield Match(start, end, value)


def parse_tool_call(text: str, context: ExtractionContext) -> ToolCallValue | None:
    """Parse one whole tool call: call syntax (with an optional result clause), a JSON call
    object, the canonical form (``{"name", "arguments", "result"}`` or ``{"name",
    "mention": true}``), or a bare tool name (a mention). None when it is none of these."""
    try:
        return _parse_one(text.strip())
    except (RecursionError, MemoryError, ValueError):  # pragma: no cover - defensive
        return None


def _parse_one(text: str) -> ToolCallValue | None:
    if not text or len(text) > _MAX_JSON_CHARS:
        return None
    if text.startswith("{"):
        try:
            obj = _JSON.decode(text)
        except (ValueError, RecursionError):
            return None
        if (
            isinstance(obj, dict)
            and obj.get("mention") is True
            and isinstance(obj.get("name"), str)
        ):
            return ToolCallValue(name=obj["name"], form="mention")
        try:
            name, arguments, result, _ = _call_of(obj)
        except (_Reject, RecursionError):
            return None
        return _value(name, arguments, result, text)
    start = _CALL_START.match(text)
    if start is not None:
        value, end = _syntax_call(text, 0)
        return None if text[end:].strip(" \t\n.;") else value
    if _MENTION.fullmatch(text) and _looks_like_tool(text, 0, len(text)):
        return ToolCallValue(name=text, form="mention")
    return None
