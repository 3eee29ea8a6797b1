"""Tool calls in text: JSON logs, call syntax and prose mentions."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping

from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.toolcall_json import _JSON, _call_of, _scan_json
from factdiff.extraction.recognizers.toolcall_syntax import (
    _CALL_START,
    _closing,
    _parse_call_expr,
    _parse_result,
    _result_line,
)
from factdiff.values.base import FactType
from factdiff.values.toolcall import (
    _MAX_CONTEXT,
    _MAX_JSON_CHARS,
    ToolCallValue,
    _encode_items,
    _Reject,
)

# --------------------------------------------------------------------------- mentions

_MENTION = re.compile(
    r"(?<![\w.@#$/\\\-])(?>[a-z][a-z0-9]*(?:[._][a-z0-9]+)+)(?![\w@(\-]|\.\w|/|:/)"
)
_MENTION_JOINT = re.compile(r"[a-z0-9][._][a-z0-9]")
"""What every mention has: a text without it is not scanned for mentions."""
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
        for candidate in _CALL_START.finditer(text) if "(" in text else ():
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
        if _MENTION_JOINT.search(text) is None:
            return
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
