"""Whole-string parsers of field-driven values: booleans and free text."""

from __future__ import annotations

import re

from factdiff.values.fieldtypes import BooleanValue, TextValue, fold

_SPACE = re.compile(r"\s+")


TRUE_WORDS = frozenset({"true", "yes", "y", "1", "on"})
FALSE_WORDS = frozenset({"false", "no", "n", "0", "off"})


def parse_boolean(text: str) -> BooleanValue | None:
    """``yes``/``true``/``1`` and ``no``/``false``/``0`` (whole string)."""
    folded = fold(text)
    if folded in TRUE_WORDS:
        return BooleanValue(True)
    if folded in FALSE_WORDS:
        return BooleanValue(False)
    return None


def parse_text(text: str) -> TextValue | None:
    """Any non-blank string, whitespace-normalised."""
    cleaned = _SPACE.sub(" ", text).strip()
    return TextValue(cleaned) if cleaned else None
