"""Counts in words, for the CLI and the pages: ``1 entry``, ``2 entries``, ``0 entries``."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``count`` followed by ``singular`` when it is 1, else by ``many`` (default: an ``s``
    added): ``plural(1, "entry", "entries") == "1 entry"``, ``plural(3, "event") == "3 events"``.
    """
    word = singular if count == 1 else (many if many is not None else f"{singular}s")
    return f"{count} {word}"
