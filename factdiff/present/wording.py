"""Numbers in words, one form each for the CLI and the pages: counts (``1 entry``,
``2 entries``), shares as percentages (``66.7%``) and amounts in US dollars (``$0.0012``)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

__all__ = ["percent", "plural", "signed_percent", "usd"]


def plural(count: int, singular: str, many: str | None = None) -> str:
    """``count`` followed by ``singular`` when it is 1, else by ``many`` (default: an ``s``
    added): ``plural(1, "entry", "entries") == "1 entry"``, ``plural(3, "event") == "3 events"``.
    """
    word = singular if count == 1 else (many if many is not None else f"{singular}s")
    return f"{count} {word}"


def percent(share: float | None) -> str:
    """A share (0 to 1) as a percentage to one decimal, ``-`` for none: ``66.7%``."""
    return "-" if share is None else f"{share:.1%}"


def signed_percent(change: float | None) -> str:
    """A change of a share, signed: ``+5.0%``, ``-2.5%``, ``-`` for none."""
    return "-" if change is None else f"{change:+.1%}"


def usd(amount: str | Decimal | float | None) -> str:
    """An amount in US dollars with the precision it needs: cents from a cent up
    (``$12.35``), two significant digits below (``$0.0012``, ``$0.00012``), ``$0.00`` for
    nothing, ``unknown`` for None (a price was missing)."""
    if amount is None:
        return "unknown"
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        return str(amount)
    if value == 0:
        return "$0.00"
    if abs(value) < Decimal("0.01"):
        value = round(value, 1 - value.adjusted())
        if abs(value) < Decimal("0.01"):
            return f"${value:f}"
    return f"${value:,.2f}"
