"""Tool calls in JSON logs (OpenAI, Anthropic, generic), with their results."""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from factdiff.values.toolcall import (
    _MAX_CALL_CHARS,
    _MAX_JSON_ATTEMPTS,
    _MAX_JSON_CHARS,
    _RESULT_WINDOW,
    _Reject,
)

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
