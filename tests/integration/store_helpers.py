"""Helpers for store tests: valid compression meta, and rows only older versions wrote."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from factdiff.schema.model import SchemaRef
from factdiff.store import AttemptOutcome, MemoryStore, WarmMeta, codec

SCHEMA = SchemaRef("customer_service", 1, "sha256:" + "0" * 64)


def meta(**extra: Any) -> WarmMeta:
    """Valid warm meta; ``extra`` keys are kept as keys this version does not know."""
    return WarmMeta(
        schema=SCHEMA,
        extractor="rules/1",
        summarizer="extractive",
        method_version="extractive/1",
        budget_words=60,
        rung=0,
        outcome=AttemptOutcome.CLEAN,
        compressed_at=datetime(2026, 4, 9, tzinfo=UTC),
        attempt_count=1,
        source_content_hash="sha256:" + "1" * 64,
        extra=extra,
    )


def add_blank_entry(store: MemoryStore, agent: str, content: str, now: datetime) -> str:
    """A hot entry whose text is ``content`` (blank), as factdiff stored it before every way
    in refused blank entries: added with a text, then rewritten behind the store's back."""
    from tests.integration.conftest import raw

    entry_id = store.add(agent, "placeholder", now=now, last_used_at=now)
    data = codec.encode_content(content, max_bytes=1024)
    raw(store, "UPDATE hot_content SET content = ? WHERE entry_id = ?", data, entry_id)
    raw(
        store,
        "UPDATE entries SET content_hash = ?, size_bytes = ? WHERE id = ?",
        codec.content_hash(data),
        len(data),
        entry_id,
    )
    assert store.get(entry_id).content == content
    return entry_id
