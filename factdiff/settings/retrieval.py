"""The ``retrieval`` section: when use promotes a warm entry back to hot, what a search touches.

* ``promote_after`` (default 3): a warm entry whose archived source retrieval has fetched
  more than this many times within ``promote_window`` goes back to hot (event ``promoted``);
  ``never`` turns promotion off;
* ``promote_window`` (default ``7d``): the window those fetches are counted over;
* ``touch`` (default ``hits``): what a search marks as used (its dormancy clock restarts):
  ``hits`` every returned entry, ``top`` the first one only, ``none`` nothing.

The keys are ``promote_after``, ``promote_window`` and ``search_touch``, resolved like every
setting (``factdiff.settings``); ``RetrievalSettings.from_values`` reads what they resolved to.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import timedelta

from factdiff.errors import UsageError
from factdiff.inputs.bounds import COUNT_MAX
from factdiff.inputs.times import MAX_DURATION, parse_duration

__all__ = [
    "NEVER",
    "RetrievalSettings",
    "TouchMode",
    "parse_promote_after",
    "parse_touch",
    "parse_window",
]

NEVER = "never"
_COUNT = re.compile(r"[0-9]+")


class TouchMode(enum.StrEnum):
    """What a search marks as used."""

    HITS = "hits"
    TOP = "top"
    NONE = "none"


@dataclass(frozen=True)
class RetrievalSettings:
    """See the module docstring."""

    promote_after: int | None = 3
    """Fetches of a warm source within the window above which it is promoted (None: never)."""
    promote_window: timedelta = timedelta(days=7)
    touch: TouchMode = TouchMode.HITS

    def __post_init__(self) -> None:
        if self.promote_after is not None and self.promote_after < 0:
            raise UsageError(f"promote_after must be 0 or more (got {self.promote_after})")
        if self.promote_window <= timedelta(0):
            raise UsageError("promote_window must be longer than zero")
        if self.promote_window > timedelta(seconds=MAX_DURATION):
            raise UsageError("promote_window must be at most 36500d")

    @classmethod
    def from_values(
        cls,
        promote_after: str | int | None,
        promote_window: str | None,
        touch: str | None,
    ) -> RetrievalSettings:
        """The section from its resolved values (None or blank: the default)."""
        after, window, mode = (_given(v) for v in (promote_after, promote_window, touch))
        defaults = cls()
        return cls(
            promote_after=defaults.promote_after if after is None else parse_promote_after(after),
            promote_window=defaults.promote_window if window is None else parse_window(str(window)),
            touch=defaults.touch if mode is None else parse_touch(str(mode)),
        )


def parse_promote_after(value: str | int) -> int | None:
    """A count of fetches (0 or more) or ``never``."""
    text = str(value).strip().lower()
    if text == NEVER:
        return None
    if not _COUNT.fullmatch(text) or len(text) > len(str(COUNT_MAX)) or int(text) > COUNT_MAX:
        raise UsageError(
            f"promote_after {str(value)[:40]!r} is not a count of fetches (0 to {COUNT_MAX}) "
            "or never"
        )
    return int(text)


def parse_window(value: str) -> timedelta:
    """A duration such as ``7d``, ``12h``, ``1d12h`` (longer than zero, at most
    ``MAX_DURATION``; read by ``factdiff.inputs.times.parse_duration``)."""
    try:
        seconds = parse_duration(value)
    except ValueError as exc:
        raise UsageError(f"promote_window: {exc}") from None
    if seconds <= 0:
        raise UsageError(f"promote_window must be longer than zero (got {value!r})")
    return timedelta(seconds=seconds)


def parse_touch(value: str) -> TouchMode:
    """``hits``, ``top`` or ``none``."""
    try:
        return TouchMode(value.strip().lower())
    except ValueError:
        known = ", ".join(m.value for m in TouchMode)
        raise UsageError(f"search touch {value!r} is not one of {known}") from None


def _given(value: str | int | None) -> str | int | None:
    """``value`` unless it is unset or blank."""
    return value if value is not None and str(value).strip() else None
