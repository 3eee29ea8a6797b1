"""A ``WarmMeta`` for store tests that only need some valid compression meta."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from factdiff.schema.model import SchemaRef
from factdiff.store import AttemptOutcome, WarmMeta

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
