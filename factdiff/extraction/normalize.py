"""Text normalised for recognition (NFKC), with a map back to the original offsets.

Recognizers read the NFKC form of the text, so fullwidth digits and symbols (``＄１２``), the
``㎏`` sign or a no-break space read as their plain forms; every span they report is mapped
back to the original text, so evidence always points at what the text says. Normalisation
is per character (``NFKC(c)`` for each ``c``), which keeps the map exact. The space
characters used to group digits (no-break, narrow no-break, thin and figure spaces) become
U+202F (narrow no-break space) between two digits, the one grouping space the numeric
recognizers accept without a currency beside the number, and a plain space elsewhere.

ASCII text, and text already in NFKC without those spaces, is used as is (no copy, no map).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

GROUP_SPACE = "\u202f"
"""The digit-grouping space recognizers see (``1 250 000``)."""
_SPACES = frozenset("\u00a0\u202f\u2009\u2007")
_SPACE_RE = re.compile("[\u00a0\u202f\u2009\u2007]")


@lru_cache(maxsize=4096)
def _nfkc(char: str) -> str:
    return unicodedata.normalize("NFKC", char)


@dataclass(frozen=True)
class Normalized:
    """The recognizers' view of a text and the map of its offsets to the original."""

    original: str
    text: str
    origin: tuple[int, ...] | None = None
    """Original offset of each normalised character (None: same text)."""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the normalised span ``[start, end)``."""
        if self.origin is None:
            return start, end
        if end <= start:
            at = self.origin[start] if start < len(self.origin) else len(self.original)
            return at, at
        return self.origin[start], self.origin[end - 1] + 1


def normalize(text: str) -> Normalized:
    """The NFKC form of ``text`` for recognition (see the module docstring)."""
    if text.isascii() or (
        unicodedata.is_normalized("NFKC", text) and _SPACE_RE.search(text) is None
    ):
        return Normalized(text, text)
    parts: list[str] = []
    origin: list[int] = []
    last = len(text) - 1
    for i, char in enumerate(text):
        if char.isascii():
            parts.append(char)
            origin.append(i)
            continue
        if char in _SPACES:
            between = 0 < i < last and text[i - 1].isdigit() and text[i + 1].isdigit()
            mapped = GROUP_SPACE if between else " "
        else:
            mapped = _nfkc(char)
        parts.append(mapped)
        origin.extend([i] * len(mapped))
    return Normalized(text, "".join(parts), tuple(origin))
