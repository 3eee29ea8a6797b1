"""The largest integers a caller may give: one set of bounds for every entry point.

An integer option, query parameter or body field above its bound is refused at the door
(a usage error, exit 2, or a 422), instead of failing deep inside as an ``OverflowError``
from the database driver or a ``ValueError`` from ``itertools.islice``. Each bound is far
above any real use and within what every store holds: SQLite and PostgreSQL integers are
64-bit, and schema versions are 32-bit integers on PostgreSQL.
"""

from __future__ import annotations

__all__ = ["BYTES_MAX", "CONCURRENCY_MAX", "COUNT_MAX", "ID_MAX", "PROCESSES_MAX", "VERSION_MAX"]

COUNT_MAX = 1_000_000_000
"""A count: a page size (``--limit``), hits (``-k``), a window, a budget, a rung."""
VERSION_MAX = 2**31 - 1
"""A schema version."""
ID_MAX = 2**63 - 1
"""A numeric id (an event id)."""
BYTES_MAX = 2**40
"""A size in bytes."""
PROCESSES_MAX = 1024
"""Processes or threads started for one command."""
CONCURRENCY_MAX = 10_000
"""Entries or model calls in flight at once."""
