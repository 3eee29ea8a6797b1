"""Split a source text into units a summarizer can select and trim.

A text is a sequence of ``Unit``s: one per sentence for prose, one per dialogue turn for
transcripts (lines like ``user: ...``, ``USER: ...``, ``Customer: ...``; a turn runs until the
next speaker line). Each unit holds its ``Sentence``s, and each sentence its clause
``segments`` (cut after ``, ; : )``, before ``(`` and around dashes). A turn whose body is a
JSON container (a tool result) has one segment per JSON member and a ``JsonTree``, so that a
trimmed body is rendered as smaller, still valid JSON. Every boundary is a character offset
into the original text and no boundary falls strictly inside a *protected* span (a fact's
evidence), so a fact always lies wholly inside one segment.

``factdiff.summarize.rendering`` turns a choice of segments back into readable text.
Everything is linear regex passes and bisections: no locale, no randomness.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "JsonTree",
    "Layout",
    "Sentence",
    "Span",
    "Unit",
    "count_words",
    "is_filler",
    "merge_spans",
    "split_units",
    "strip_span",
]

Span = tuple[int, int]

MAX_SEGMENT_WORDS = 40
"""A clause longer than this is cut into chunks of ``CHUNK_WORDS`` words."""
CHUNK_WORDS = 20

_KNOWN_ROLES = (
    "user|assistant|tool|system|customer|agent|human|ai|bot|caller|client|operator|rep"
    "|representative|support|function|developer|model"
)
_ROLE_LINE = re.compile(
    rf"^[ \t]*((?:{_KNOWN_ROLES})(?:[ _-]?\d{{1,3}})?)[ \t]*:(?=[ \t]|$)",
    re.IGNORECASE | re.MULTILINE,
)
_NAME_LINE = re.compile(
    r"^[ \t]*([A-Z][A-Za-z.'-]{0,20}(?: [A-Z][A-Za-z.'-]{0,20}){0,2})[ \t]*:(?=[ \t]|$)",
    re.MULTILINE,
)
_WORD = re.compile(r"\S+")
_ALNUM = re.compile(r"[^\W_]")
_CORE = re.compile(r"\S(?:.*\S)?", re.DOTALL)
_COUNTED = re.compile(r"(?<!\S)\S*?[^\W_]")

_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof st jr sr inc ltd co corp vs etc no nos approx dept est fig jan feb
    mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    ave rd blvd mt ft""".split()  # noqa: SIM905
)
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK = re.compile(r"\n")
_BULLET = re.compile(r"[ \t]*(?:[-*•]|\d{1,3}[.)])\s")
_CLAUSE = re.compile(r"[,;:)](?=\s)|\s(?:[-–—]{1,2}(?=\s)|(?=\())")
_JSON_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity)|([{}\[\]:,]))'
)
MAX_JSON_DEPTH = 64
_FILLER_BODIES = frozenset({"", "none", "null", "nil", "n/a"})


@dataclass(frozen=True)
class Sentence:
    """A sentence (or a whole structured body) and its clause segments."""

    start: int
    end: int
    segments: tuple[Span, ...]


@dataclass(frozen=True)
class Unit:
    """One selectable unit: a prose sentence or a dialogue turn."""

    start: int
    end: int
    label: Span | None
    """The speaker label with its colon (``user:``), for dialogue turns."""
    sentences: tuple[Sentence, ...]
    tree: JsonTree | None = None
    """For a JSON body (a tool result): its members, so a trimmed body stays valid JSON."""

    @property
    def structured(self) -> bool:
        """True for a JSON body."""
        return self.tree is not None


@dataclass(frozen=True)
class JsonTree:
    """The members of a JSON body, one per segment of its single sentence.

    A member is ``"key": scalar`` (or a bare array item), or the opening of a nested
    container (``"items": [``). ``parents[i]`` is the member holding member ``i`` (-1 for
    the top level); ``closers[i]`` is the offset of a container's closing bracket (-1 for
    a scalar).
    """

    open: int
    close: int
    parents: tuple[int, ...]
    closers: tuple[int, ...]


@dataclass(frozen=True)
class Layout:
    """The units of one text."""

    units: tuple[Unit, ...]
    dialogue: bool


def count_words(text: str) -> int:
    """Words in ``text``: whitespace-separated tokens holding at least one letter or digit."""
    return len(_COUNTED.findall(text))


def is_filler(text: str) -> bool:
    """True for a turn body that says nothing (empty, ``None``, ``null``)."""
    return text.strip().lower() in _FILLER_BODIES


def strip_span(text: str, span: Span) -> Span | None:
    """``span`` clipped to ``text`` and shrunk to its non-whitespace core, or None."""
    start, end = max(0, span[0]), min(len(text), span[1])
    core = _CORE.search(text, start, end) if start < end else None
    return core.span() if core else None


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Sorted, disjoint intervals covering every span (overlapping ones merged)."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


class _Guard:
    """Answers "is this offset strictly inside a protected span?" in O(log n)."""

    def __init__(self, protected: Sequence[Span]) -> None:
        self._intervals = merge_spans(protected)
        self._starts = [s for s, _ in self._intervals]

    def inside(self, offset: int) -> bool:
        """True when ``offset`` lies strictly inside a protected span."""
        i = bisect.bisect_left(self._starts, offset) - 1
        return i >= 0 and self._intervals[i][0] < offset < self._intervals[i][1]

    def overlaps(self, start: int, end: int) -> bool:
        """True when a protected span shares a character with ``[start, end)``."""
        i = bisect.bisect_left(self._starts, end) - 1
        return i >= 0 and self._intervals[i][1] > start

    def within(self, start: int, end: int) -> list[Span]:
        """The protected intervals that share a character with ``[start, end)``."""
        i = max(0, bisect.bisect_right(self._starts, start) - 1)
        j = bisect.bisect_left(self._starts, end)
        return [iv for iv in self._intervals[i:j] if iv[1] > start]

    def keep(self, cuts: Iterable[int]) -> list[int]:
        """The cuts that do not fall inside a protected span."""
        return [c for c in cuts if not self.inside(c)]


def split_units(text: str, protected: Sequence[Span] = ()) -> Layout:
    """Split ``text`` into units; no boundary falls strictly inside a ``protected`` span."""
    guard = _Guard(protected)
    turns = _turn_starts(text)
    if turns is None:
        return _prose_layout(text, guard)
    starts = guard.keep(turns)
    preamble = not starts or starts[0] != 0
    bounds = [0, *starts, len(text)] if preamble else [*starts, len(text)]
    units_list: list[Unit] = []
    for i, (begin, stop) in enumerate(itertools.pairwise(bounds)):
        unit = _turn(text, begin, stop, guard, labelled=not (preamble and i == 0))
        if unit is not None:
            units_list.append(unit)
    if not units_list:  # every turn is empty: read the labels as prose
        return _prose_layout(text, guard)
    return Layout(tuple(units_list), dialogue=True)


def _prose_layout(text: str, guard: _Guard) -> Layout:
    """One unit per sentence."""
    units = tuple(Unit(s.start, s.end, None, (s,)) for s in _sentences(text, 0, len(text), guard))
    return Layout(units, dialogue=False)


def _turn_starts(text: str) -> list[int] | None:
    """Offsets of speaker lines, or None when the text is not a transcript.

    A transcript has two speaker lines or starts with a role (``user:``, ``Agent:``...);
    a name (``Alice:``) counts as a speaker when it starts two lines and another speaker
    exists, so ``Note:`` or ``Subject:`` headers stay prose.
    """
    starts = [m.start() for m in _ROLE_LINE.finditer(text)]
    role_starts = set(starts)
    names: dict[str, list[int]] = {}
    for m in _NAME_LINE.finditer(text):
        if m.start() not in role_starts:
            names.setdefault(m.group(1), []).append(m.start())
    repeated = [offsets for offsets in names.values() if len(offsets) >= 2]
    if len(repeated) >= 2 or (repeated and starts):
        for offsets in repeated:
            starts.extend(offsets)
    if len(starts) < 2 and not (starts and starts[0] == 0):
        return None
    return sorted(starts)


def _label_end(text: str, start: int, stop: int) -> int | None:
    """End of the speaker label (after its colon) of the turn at ``start``, if any."""
    line_end = text.find("\n", start, stop)
    line = text[start : stop if line_end < 0 else line_end]
    m = _ROLE_LINE.match(line) or _NAME_LINE.match(line)
    return start + m.end() if m else None


def _turn(text: str, start: int, stop: int, guard: _Guard, labelled: bool) -> Unit | None:
    label_end = _label_end(text, start, stop) if labelled else None
    label: Span | None = None
    body = strip_span(text, (start if label_end is None else label_end, stop))
    if label_end is not None and guard.overlaps(start, body[0] if body else stop):
        body = strip_span(text, (start, stop))  # a fact runs through the label: keep it as text
    elif label_end is not None:
        label = strip_span(text, (start, label_end))
    if body is None or (is_filler(text[body[0] : body[1]]) and not guard.overlaps(start, stop)):
        return None
    parsed = _json_members(text, body[0], body[1], guard) if text[body[0]] in "{[" else None
    if parsed is not None:
        segments, tree = parsed
        sentences: tuple[Sentence, ...] = (Sentence(body[0], body[1], segments),)
    else:
        tree = None
        sentences = tuple(_sentences(text, body[0], body[1], guard))
    if not sentences:
        return None
    begin = label[0] if label else sentences[0].start
    return Unit(begin, sentences[-1].end, label, sentences, tree)


def _sentence_cuts(text: str, start: int, stop: int) -> Iterable[int]:
    """Candidate sentence boundaries in ``text[start:stop]``."""
    for m in _SENTENCE_END.finditer(text, start, stop):
        if _ends_sentence(text, start, m.start(), m.end(), stop):
            yield m.end()
    for m in _PARAGRAPH.finditer(text, start, stop):
        yield m.start()
    for m in _LINE_BREAK.finditer(text, start, stop):
        if _line_breaks_sentence(text, m.start(), stop):
            yield m.start()


def _ends_sentence(text: str, floor: int, mark: int, end: int, stop: int) -> bool:
    """Whether the punctuation at ``mark`` closes a sentence (not ``Mr.`` or ``J.``)."""
    if text[mark] != ".":
        return True
    before = text[max(floor, mark - 12) : mark].split()
    token = before[-1].lstrip("\"'(“‘[") if before else ""
    if _INITIALISM.fullmatch(token) or token.lower() in _ABBREVIATIONS:
        return False
    if len(token) == 1 and token.isupper():
        return False
    j = end
    while j < stop and text[j].isspace():
        j += 1
    return j >= stop or not text[j].islower()


def _line_breaks_sentence(text: str, newline: int, stop: int) -> bool:
    """A single newline ends a sentence unless it only wraps a running line."""
    i = newline
    while i > 0 and text[i - 1] in " \t\r":
        i -= 1
    prev = text[i - 1] if i > 0 else ""
    j = newline + 1
    if _BULLET.match(text, j, stop):
        return True
    while j < stop and text[j] in " \t\r":
        j += 1
    nxt = text[j] if j < stop else ""
    wrapped = (prev.isalpha() and prev.islower()) or prev in ",;("
    return not (wrapped and nxt.isalpha() and nxt.islower())


def _pieces(text: str, start: int, stop: int, cuts: Iterable[int]) -> list[Span]:
    """The non-blank pieces of ``text[start:stop]`` between sorted ``cuts``."""
    bounds = [start, *sorted({c for c in cuts if start < c < stop}), stop]
    out: list[Span] = []
    for a, b in itertools.pairwise(bounds):
        piece = strip_span(text, (a, b))
        if piece is not None:
            out.append(piece)
    return out


def _sentences(text: str, start: int, stop: int, guard: _Guard) -> list[Sentence]:
    cuts = guard.keep(_sentence_cuts(text, start, stop))
    return [
        Sentence(a, b, _segments(text, a, b, guard)) for a, b in _pieces(text, start, stop, cuts)
    ]


def _segments(text: str, start: int, stop: int, guard: _Guard) -> tuple[Span, ...]:
    cuts = guard.keep(m.end() for m in _CLAUSE.finditer(text, start, stop))
    out: list[Span] = []
    pending: int | None = None  # start of wordless pieces (``{``, ``--``) joining the next
    last = start
    for a, b in _pieces(text, start, stop, cuts):
        last = b
        if not _ALNUM.search(text, a, b):
            pending = a if pending is None else pending
            continue
        out.extend(_chunk(text, a if pending is None else pending, b, guard))
        pending = None
    if pending is not None:
        out.append((out.pop()[0], last) if out else (pending, last))
    return tuple(out)


def _chunk(text: str, start: int, stop: int, guard: _Guard) -> list[Span]:
    """Cut a clause longer than ``MAX_SEGMENT_WORDS`` words into word chunks."""
    if stop - start < 2 * MAX_SEGMENT_WORDS:
        return [(start, stop)]
    words = [m.start() for m in _WORD.finditer(text, start, stop)]
    if len(words) <= MAX_SEGMENT_WORDS:
        return [(start, stop)]
    cuts = guard.keep(words[CHUNK_WORDS::CHUNK_WORDS])
    return _pieces(text, start, stop, cuts)


def _json_members(
    text: str, start: int, stop: int, guard: _Guard
) -> tuple[tuple[Span, ...], JsonTree] | None:
    """The members of the JSON value ``text[start:stop]``; None when it is not a JSON
    container, nests deeper than ``MAX_JSON_DEPTH``, or a protected span straddles members."""
    try:
        json.loads(text[start:stop])
    except (ValueError, RecursionError):
        return None
    segments: list[Span] = []
    parents: list[int] = []
    closers: list[int] = []
    stack: list[int] = []  # member index of each open container (-1: the top level)
    key_start = -1
    for m in _JSON_TOKEN.finditer(text, start, stop):
        string, scalar, punct = m.group(1, 2, 3)
        at = m.start(1) if string else m.start(2) if scalar else m.start(3)
        if punct in ("{", "[") and not stack:
            stack.append(-1)
        elif punct in ("{", "["):
            if len(stack) > MAX_JSON_DEPTH:
                return None
            segments.append((at if key_start < 0 else key_start, m.end()))
            parents.append(stack[-1])
            closers.append(-1)
            stack.append(len(segments) - 1)
            key_start = -1
        elif punct in ("}", "]"):
            member = stack.pop()
            if member >= 0:
                closers[member] = at
        elif punct == ":":
            continue
        elif punct == "," or (string and _is_key(text, m.end(), stop)):
            key_start = at if string else -1
        else:
            segments.append((at if key_start < 0 else key_start, m.end()))
            parents.append(stack[-1] if stack else -1)
            closers.append(-1)
            key_start = -1
    if not segments or not _join_straddled(guard, (start, stop), segments, parents, closers):
        return None
    return tuple(segments), JsonTree(start, stop - 1, tuple(parents), tuple(closers))


def _is_key(text: str, end: int, stop: int) -> bool:
    """True when the string token ending at ``end`` is followed by a colon."""
    while end < stop and text[end].isspace():
        end += 1
    return end < stop and text[end] == ":"


def _join_straddled(
    guard: _Guard,
    body: Span,
    segments: list[Span],
    parents: list[int],
    closers: list[int],
) -> bool:
    """Join sibling scalar members that one protected span runs across (``"first_name":
    "Ada", "last_name": "Lovelace"``), in place. False when a span touches text outside
    every member or runs across members that are not sibling scalars."""
    starts = [a for a, _ in segments]
    for a, b in guard.within(*body):
        i = bisect.bisect_right(starts, a) - 1
        j = bisect.bisect_left(starts, b) - 1
        if i < 0 or a >= segments[i][1] or b > segments[j][1]:
            return False
        if i == j:
            continue
        if any(closers[k] >= 0 or parents[k] != parents[i] for k in range(i, j + 1)):
            return False
        segments[i : j + 1] = [(segments[i][0], segments[j][1])]
        del parents[i + 1 : j + 1], closers[i + 1 : j + 1], starts[i + 1 : j + 1]
        parents[:] = [p - (j - i) if p > j else p for p in parents]
    return True
