"""Tool calls written as call syntax in prose, with their results."""

from __future__ import annotations

import ast
import re
from decimal import Decimal, InvalidOperation
from typing import cast

from factdiff.extraction.recognizers.toolcall_json import _JSON, _decode_at, _flatten_result
from factdiff.values.toolcall import _MAX_CALL_CHARS, _MAX_DEPTH, _PLAIN_NUMBER, _key_text, _Reject

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
