"""Schema patterns on a regex engine that cannot backtrack catastrophically (RE2).

A field's ``pattern`` runs on RE2 (``google-re2``), whose matching time is linear in the text:
``(a+)+$`` on any input returns at once. RE2 has no backreferences, possessive quantifiers or
atomic groups, and no lookarounds. Because boundary checks are common in ID patterns, a
pattern may **begin** with one lookbehind (``(?<![\\w-])``, ``(?<=#)``) and **end** with one
lookahead (``(?![\\w-]|\\.\\w)``, ``(?=\\s)``); they are checked on each match with RE2 too (a
lookbehind over the last :data:`MAX_LOOKAROUND_WIDTH` characters before the match). Anything
else RE2 rejects is a ``SchemaError`` naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import re2  # type: ignore[import-untyped]

from factdiff.errors import SchemaError

MAX_LOOKAROUND_WIDTH = 8
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

_LEADING = re.compile(r"\A\(\?<([!=])")
_TRAILING_OPEN = re.compile(r"\(\?([!=])")


class _Found(Protocol):
    """What is read of an RE2 match."""

    def span(self, group: int = 0) -> tuple[int, int]: ...


class _Compiled(Protocol):
    """What is used of a compiled RE2 pattern (``google-re2`` ships no type information)."""

    @property
    def groups(self) -> int: ...

    def search(self, text: str, pos: int = 0) -> _Found | None: ...

    def match(self, text: str, pos: int = 0) -> _Found | None: ...

    def fullmatch(self, text: str, pos: int = 0, endpos: int = ...) -> _Found | None: ...


@dataclass(frozen=True)
class _Look:
    negative: bool
    body: _Compiled
    widths: tuple[int, ...]


@dataclass(frozen=True)
class SafePattern:
    """A compiled schema pattern: RE2 core plus optional edge lookarounds."""

    pattern: str
    core: _Compiled
    behind: _Look | None
    ahead: _Look | None

    @property
    def groups(self) -> int:
        """Capturing groups of the core pattern."""
        return self.core.groups

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of group 1 (or the whole match) of every match, left to right."""
        pos, group = 0, 1 if self.groups else 0
        while pos <= len(text):
            found = self.core.search(text, pos)
            if found is None:
                return
            start, end = found.span()
            if self._edges_ok(text, start, end):
                yield found.span(group)
                pos = end if end > start else end + 1
            else:
                pos = start + 1

    def _edges_ok(self, text: str, start: int, end: int) -> bool:
        if self.behind is not None:
            hit = any(
                k <= start and self.behind.body.fullmatch(text, start - k, start) is not None
                for k in self.behind.widths
            )
            if hit == self.behind.negative:
                return False
        if self.ahead is not None:
            hit = self.ahead.body.match(text, end) is not None
            if hit == self.ahead.negative:
                return False
        return True


def _closing(pattern: str, open_at: int) -> int:
    """Index of the ``)`` closing the group opened at ``open_at`` (escapes, classes aware)."""
    depth, i, in_class = 0, open_at, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _re2(pattern: str, field: str, what: str) -> _Compiled:
    try:
        compiled: _Compiled = re2.compile(pattern, options=_OPTIONS)
        return compiled
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise SchemaError(
            f"{what} {pattern!r} uses syntax the safe regex engine (RE2) does not support "
            f"({reason}): no backreferences, possessive or atomic groups, and lookarounds only "
            "at the very start or end",
            field=field,
        ) from None


@lru_cache(maxsize=512)
def compile_pattern(pattern: str, field: str = "") -> SafePattern:
    """Compile a field pattern for RE2, or raise ``SchemaError`` naming ``field``."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise SchemaError(f"invalid regex {pattern!r}: {exc}", field=field) from None
    core, behind, ahead = pattern, None, None
    lead = _LEADING.match(core)
    if lead is not None:
        close = _closing(core, 0)
        body = core[4:close]
        widths = tuple(range(MAX_LOOKAROUND_WIDTH + 1))
        behind = _Look(lead.group(1) == "!", _re2(body, field, "lookbehind"), widths)
        core = core[close + 1 :]
    if core.endswith(")"):
        for m in _TRAILING_OPEN.finditer(core):
            if m.start() > 0 and core[m.start() - 1] == "\\":
                continue
            if _closing(core, m.start()) == len(core) - 1:
                body = core[m.end() : -1]
                ahead = _Look(m.group(1) == "!", _re2(body, field, "lookahead"), ())
                core = core[: m.start()]
                break
    compiled = _re2(core, field, "pattern")
    if compiled.groups > 1:
        raise SchemaError(f"pattern {pattern!r} has more than one group", field=field)
    return SafePattern(pattern, compiled, behind, ahead)
