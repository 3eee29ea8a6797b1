"""The commands the README and the docs (``docs/**/*.md``) print, read from their shell blocks.

A shell block is a fenced block without a language (or ``sh``, ``bash``, ``shell``,
``console``). Each line of it (a trailing ``\\`` continues it on the next line) is a command
when its program, after any ``NAME=value`` prefixes, is one of ``PROGRAMS``; a block with no
command at all is prose laid out as code (a directory tree, a formula), and a block that
mixes both is an error, so a command of a new program cannot slip by unnoticed.

A command is keyed by its text without its trailing comment, whitespace collapsed. To run
it, ``runnable`` keeps the printed text and only fills it in: the optional parts of a
synopsis (``[--json]``) are all used, placeholder words (``ID``, ``QUERY``...) outside quotes
are replaced by the values a test binds, and the documented ports by free ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = frozenset({"factdiff", "curl", "make", "pip", "export", "python", "python3"})
SHELL_LANGUAGES = frozenset({"", "sh", "bash", "shell", "console"})
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


@dataclass(frozen=True)
class DocCommand:
    """One documented command: where it is printed, its block, its text as printed."""

    path: str
    line: int
    block: int
    text: str

    @property
    def key(self) -> str:
        """The command without its comment, whitespace collapsed."""
        return " ".join(strip_comment(self.text.replace("\\\n", " ")).split())

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class ProseBlock:
    """A shell-looking block that holds no command (identified by its first line)."""

    path: str
    line: int
    first_line: str


def strip_comment(text: str) -> str:
    """``text`` without a ``#`` comment that starts outside quotes after whitespace."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index].rstrip()
    return text.rstrip()


def program(text: str) -> str:
    """The program a command line runs: its first word after ``NAME=value`` prefixes."""
    for word in strip_comment(text).split():
        if not _ASSIGNMENT.fullmatch(word):
            return word
    return ""


def _logical_lines(body: str, first: int) -> Iterator[tuple[int, str]]:
    """Lines of a block joined across trailing backslashes, with their line numbers."""
    pending, start = "", first
    for offset, raw in enumerate(body.splitlines()):
        if not pending:
            start = first + offset
        pending += raw + "\n"
        if raw.rstrip().endswith("\\"):
            continue
        yield start, pending.rstrip("\n")
        pending = ""
    if pending:
        yield start, pending.rstrip("\n")


def read_docs(root: Path) -> tuple[list[DocCommand], list[ProseBlock], list[str]]:
    """Every documented command, the blocks without one, and the problems (a block that
    mixes commands with other lines)."""
    commands: list[DocCommand] = []
    prose: list[ProseBlock] = []
    problems: list[str] = []
    paths = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    block = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(root).as_posix()
        for fence in _FENCE.finditer(text):
            if fence.group(1) not in SHELL_LANGUAGES:
                continue
            block += 1
            first = text[: fence.start(2)].count("\n") + 1
            lines = [
                (number, line)
                for number, line in _logical_lines(fence.group(2), first)
                if strip_comment(line).strip()
            ]
            found = [(n, line) for n, line in lines if program(line) in PROGRAMS]
            if not found:
                prose.append(ProseBlock(name, first, lines[0][1].strip() if lines else ""))
                continue
            others = [f"{name}:{n}: {line.strip()}" for n, line in lines if (n, line) not in found]
            problems.extend(f"not a command of a known program: {other}" for other in others)
            commands.extend(DocCommand(name, n, block, line.strip()) for n, line in found)
    return commands, prose, problems


def _unquoted_words(text: str) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, quoted)`` of each word of ``text`` (quoted: it holds a quote)."""
    start, quote, quoted = None, "", False
    for index, char in enumerate(text + " "):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char.isspace():
            if start is not None:
                yield start, index, quoted
            start, quoted = None, False
            continue
        if start is None:
            start = index
        if char in "'\"":
            quote, quoted = char, True


def runnable(text: str, bind: Mapping[str, str], ports: Mapping[str, str]) -> str:
    """``text`` as it runs: comment dropped, optional ``[...]`` parts used, placeholder words
    outside quotes replaced by ``bind``, the documented ports by ``ports``."""
    text = strip_comment(text)
    pieces, last = [], 0
    for start, end, quoted in _unquoted_words(text):
        word = text[start:end]
        if not quoted:
            word = word.removeprefix("[").removesuffix("]")
            word = bind.get(word, word)
        pieces += [text[last:start], word]
        last = end
    result = "".join(pieces) + text[last:]
    for documented, free in ports.items():
        result = result.replace(documented, free)
    return result
