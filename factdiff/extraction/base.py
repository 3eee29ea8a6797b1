"""The extractor interface: text + schema -> fact record."""

from __future__ import annotations

from datetime import date
from typing import Protocol

from factdiff.extraction.record import FactRecord
from factdiff.schema.model import FactSchema


class Extractor(Protocol):
    """Finds a schema's facts in a text. Implementations must be deterministic when offline."""

    identity: str
    """Stable name and version (``rules/10``), new with every change to what it extracts; part
    of the extraction cache key and of the hot records demotion reuses."""

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The fact record of ``text``; ``reference`` is the entry's own date, if known."""
        ...
