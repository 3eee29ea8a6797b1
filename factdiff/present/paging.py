"""Opaque ``--cursor`` tokens for paged listings, and the line that says what was left out.

A cursor names its listing, a digest of the listing's filters and the key of the last item
shown, as unpadded base64url JSON. A cursor from another listing, or from the same listing
with other filters, is refused (exit 2) rather than silently paging through something else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from factdiff.errors import InputError
from factdiff.inputs import json_toml
from factdiff.present.wording import plural

if TYPE_CHECKING:
    from factdiff.values.base import JSON


def _filters_digest(filters: Mapping[str, JSON]) -> str:
    text = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def encode_cursor(listing: str, filters: Mapping[str, JSON], after: str | int) -> str:
    """The cursor that continues ``listing`` (with ``filters``) after the key ``after``."""
    body = {"l": listing, "f": _filters_digest(filters), "a": after}
    raw = json.dumps(body, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, listing: str, filters: Mapping[str, JSON]) -> str | int:
    """The key a cursor continues after; ``InputError`` if it is not one of this listing."""
    problem = (
        f"--cursor {cursor[:40]!r} is not a cursor of this `{listing}` listing with these "
        "filters: use the next_cursor that listing printed, or leave --cursor out"
    )
    try:
        padded = cursor.strip() + "=" * (-len(cursor.strip()) % 4)
        body = json_toml.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        raise InputError(problem) from None
    if not isinstance(body, dict) or body.get("l") != listing:
        raise InputError(problem)
    if body.get("f") != _filters_digest(filters):
        raise InputError(problem)
    after = body.get("a")
    if not isinstance(after, str | int) or isinstance(after, bool):
        raise InputError(problem)
    return after


def shown_line(
    noun: tuple[str, str], shown: int, offset: int, total: int, next_cursor: str | None
) -> str:
    """``200 of 603 entries (1-200); next page: --cursor X`` for the end of a table; ``noun``
    is the singular and the plural (``1 of 1 entry``)."""
    where = f"{shown} of {plural(total, *noun)}"
    if shown:
        where += f" ({offset + 1}-{offset + shown})"
    return where + (f"; next page: --cursor {next_cursor}" if next_cursor else "")
