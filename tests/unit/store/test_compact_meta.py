"""The compact encoding of warm meta: identities, digest and a small rest, exact round trips."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from factdiff.schema.model import Criticality, SchemaRef
from factdiff.store import compact, compact_meta
from factdiff.store.model import AttemptOutcome, KnownGap, WarmMeta
from factdiff.values.base import FactType

HASH = "sha256:" + "ab" * 32
MOMENT = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)


def meta(gaps: tuple[KnownGap, ...] = (), **extra: Any) -> WarmMeta:
    return WarmMeta(
        schema=SchemaRef("customer_service", 2, "sha256:" + "cd" * 32),
        extractor="rules/2",
        summarizer="extractive",
        method_version="extractive/1",
        budget_words=40,
        rung=1,
        outcome=AttemptOutcome.ACCEPTABLE_WITH_NOTES if gaps else AttemptOutcome.CLEAN,
        compressed_at=MOMENT,
        attempt_count=2,
        source_content_hash=HASH,
        source_facts_digest="sha256:" + "ef" * 32,
        known_gaps=gaps,
        extra=extra,
    )


@pytest.mark.parametrize(
    "value",
    [
        meta(),
        meta((KnownGap("call_time", Criticality.IMPORTANT, FactType.DATETIME),)),
        meta((KnownGap("old", Criticality.IMPORTANT, None),), note="kept"),
    ],
)
def test_meta_splits_into_identities_digest_and_a_small_rest(value: WarmMeta) -> None:
    data = value.to_json()
    split = compact_meta.split_meta(data, HASH, MOMENT.isoformat())
    assert set(split.identities) == {"schema", "extractor", "summarizer", "method", "shape"}
    assert json.loads(split.identities["shape"]) == {
        "a": 2,
        "o": "a" if value.known_gaps else "c",
        "r": 1,
    }
    assert split.facts_digest == bytes.fromhex("ef" * 32)
    assert len(split.rest) < 80
    assert compact_meta.join_meta(split, HASH, MOMENT.isoformat()) == data
    assert WarmMeta.from_json(compact_meta.join_meta(split, HASH, MOMENT.isoformat())) == value


def test_meta_keeps_what_the_row_does_not_hold() -> None:
    data = meta().to_json()
    other_hash = "sha256:" + "00" * 32
    split = compact_meta.split_meta(data, other_hash, "2020-01-01T00:00:00+00:00")
    assert b"source_content_hash" not in split.rest  # short key
    assert compact_meta.join_meta(split, other_hash, "2020-01-01T00:00:00+00:00") == data
    assert json.loads(split.rest)["h"] == HASH


def test_a_digest_equal_to_the_records_is_stored_once() -> None:
    data = meta().to_json()
    digest = data["source_facts_digest"]
    split = compact_meta.split_meta(data, HASH, MOMENT.isoformat(), digest)
    assert split.facts_digest is None
    assert b"sha256" not in split.rest
    assert compact_meta.join_meta(split, HASH, MOMENT.isoformat(), digest) == data
    other = compact_meta.split_meta(data, HASH, MOMENT.isoformat(), "sha256:" + "00" * 32)
    assert other.facts_digest == bytes.fromhex("ef" * 32)
    none = {**data, "source_facts_digest": None}
    split = compact_meta.split_meta(none, HASH, MOMENT.isoformat(), digest)
    assert compact_meta.join_meta(split, HASH, MOMENT.isoformat(), digest) == none


def test_meta_with_its_shape_in_its_rest_reads() -> None:
    data = meta().to_json()
    split = compact_meta.split_meta(data, HASH, MOMENT.isoformat())
    shape = json.loads(split.identities["shape"])
    rest = {**json.loads(split.rest), **shape}
    identities = {k: v for k, v in split.identities.items() if k != "shape"}
    older = compact_meta.SplitMeta(identities, split.facts_digest, compact.dump(rest))
    assert compact_meta.join_meta(older, HASH, MOMENT.isoformat()) == data


def test_a_shape_that_repeats_a_rest_key_is_refused() -> None:
    split = compact_meta.split_meta(meta().to_json(), HASH, MOMENT.isoformat())
    doubled = compact_meta.SplitMeta(
        split.identities, split.facts_digest, compact.dump({**json.loads(split.rest), "r": 0})
    )
    with pytest.raises(compact.CompactError, match="shape"):
        compact_meta.join_meta(doubled, HASH, MOMENT.isoformat())
