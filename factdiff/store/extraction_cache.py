"""The extraction cache of ``MemoryStore``: fact records keyed by source hash, schema hash
and extractor, so a source is extracted once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from factdiff.store import codec
from factdiff.store.database import Database


class ExtractionCache:
    """The extraction cache of ``MemoryStore`` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def cached_extraction(
        self, content_hash: str, schema_hash: str, extractor_id: str
    ) -> dict[str, Any] | None:
        """The cached fact record for this source, schema and extractor, if any."""
        db = self._db
        text = db.one(
            "select_extraction",
            content_hash=content_hash,
            schema_hash=schema_hash,
            extractor_id=extractor_id,
        )
        if text is None:
            return None
        record: dict[str, Any] = codec.load_json(text)
        return record

    def put_extraction(
        self, content_hash: str, schema_hash: str, extractor_id: str, record: Mapping[str, Any]
    ) -> None:
        """Cache a fact record; the first record stored for a key is kept."""
        db = self._db
        params = {
            "content_hash": content_hash,
            "schema_hash": schema_hash,
            "extractor_id": extractor_id,
            "record": codec.dump_json(dict(record), "fact record"),
        }
        db.write(lambda: db.exec("insert_extraction", **params))
