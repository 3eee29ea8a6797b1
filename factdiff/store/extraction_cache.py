"""The extraction cache of ``MemoryStore``: fact records keyed by source hash, schema hash
and extractor, so a source is extracted once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from factdiff.store import codec

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


def _store(mixin: ExtractionCacheMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class ExtractionCacheMixin:
    """The extraction cache of ``MemoryStore`` (see the module docstring)."""

    def cached_extraction(
        self, content_hash: str, schema_hash: str, extractor_id: str
    ) -> dict[str, Any] | None:
        """The cached fact record for this source, schema and extractor, if any."""
        store = _store(self)
        text = store._one(
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
        store = _store(self)
        params = {
            "content_hash": content_hash,
            "schema_hash": schema_hash,
            "extractor_id": extractor_id,
            "record": codec.dump_json(dict(record), "fact record"),
        }
        store._write(lambda: store._exec("insert_extraction", **params))
