"""A warm meta's check coverage: spans as runs, texts from the source, old rows unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff.extraction.rules import DEFAULT_EXTRACTOR
from factdiff.schema.builtin import builtin_schema
from factdiff.schema.model import SchemaRef
from factdiff.store import compact_meta
from factdiff.store.coverage_meta import (
    CheckCoverage,
    decode_runs,
    encode_runs,
    pack_runs,
    unpack_runs,
)
from factdiff.store.model import AttemptOutcome, WarmMeta
from factdiff.verify.coverage import coverage

HASH = "sha256:" + "ab" * 32
MOMENT = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
SOURCE = (
    "Refund of $1,249.00 for order 88213 approved on 2026-03-14. "
    "The customer sounded upset about the delay. Ticket closed."
)
SUMMARY = "Refund of $1,249.00 for order 88213 approved on 2026-03-14. Ticket closed."


def meta(covered: CheckCoverage | None = None) -> WarmMeta:
    return WarmMeta(
        schema=SchemaRef("customer_service", 2, "sha256:" + "cd" * 32),
        extractor="rules/2",
        summarizer="extractive",
        method_version="extractive/1",
        budget_words=40,
        rung=0,
        outcome=AttemptOutcome.CLEAN,
        compressed_at=MOMENT,
        attempt_count=1,
        source_content_hash=HASH,
        coverage=covered,
    )


def checked() -> CheckCoverage:
    schema = builtin_schema("customer_service")
    record = DEFAULT_EXTRACTOR.extract(SOURCE, schema, None)
    return CheckCoverage.of(coverage(SOURCE, record, SUMMARY), record.fact_count(), SOURCE)


@st.composite
def spans(draw: st.DrawFn) -> list[tuple[int, int]]:
    cuts = sorted(draw(st.lists(st.integers(0, 10_000), max_size=20)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return [(s, e) for s, e in pairs]


@given(spans())
def test_runs_round_trip(found: list[tuple[int, int]]) -> None:
    runs = encode_runs(found)
    assert all(n >= 0 for n in runs)
    assert decode_runs(runs) == found


@given(st.lists(st.integers(0, 2**40)))
def test_packed_runs_round_trip(runs: list[int]) -> None:
    packed = pack_runs(runs)
    assert unpack_runs(packed) == runs
    assert json.dumps(packed) == f'"{packed}"'  # nothing to escape in JSON


def test_packed_runs_refuse_what_they_cannot_be() -> None:
    with pytest.raises(ValueError, match="negative"):
        pack_runs([-1])
    with pytest.raises(ValueError, match="runs hold"):
        unpack_runs("A=")
    with pytest.raises(ValueError, match="inside a number"):
        unpack_runs("Ah")


def test_runs_refuse_overlap_and_bad_input() -> None:
    with pytest.raises(ValueError, match="not after"):
        encode_runs([(5, 9), (7, 10)])
    for bad in ([1], [1, -2], [1, "2"]):
        with pytest.raises(ValueError, match="not pairs"):
            decode_runs(bad)


def test_the_dropped_sentence_is_kept_as_a_span_and_read_from_the_source() -> None:
    covered = checked()
    assert covered.texts == ("The customer sounded upset about the delay.",)
    assert covered.sentences == 3
    assert covered.verified == 1
    data = meta(covered).to_json()["coverage"]
    kept = covered.facts_kept
    assert data == {"sentences": 3, "verified": 1, "facts_kept": kept, "dropped": 1, "u": [60, 43]}
    assert "upset" not in json.dumps(data)  # no text is stored
    assert CheckCoverage.from_json(data, SOURCE) == covered
    assert CheckCoverage.from_json(data).texts == ()  # without the source: spans only
    with pytest.raises(ValueError, match="outside the source"):
        CheckCoverage.from_json(data, SOURCE[:80])


def test_the_compact_meta_holds_coverage_as_one_short_list() -> None:
    value = meta(checked())
    data = value.to_json()
    split = compact_meta.split_meta(data, HASH, MOMENT.isoformat())
    kept = value.coverage.facts_kept  # type: ignore[union-attr]
    assert json.loads(split.rest)["v"] == [3, 1, kept, 1, pack_runs([60, 43])]
    none_dropped = replace(value, coverage=CheckCoverage(2, 2, kept))
    short = compact_meta.split_meta(none_dropped.to_json(), HASH, MOMENT.isoformat())
    assert json.loads(short.rest)["v"] == [2, 2, kept, 0]
    assert pack_runs([60, 43]) == "hchL"  # 60 = 1 * 32 + 28, 43 = 1 * 32 + 11
    joined = compact_meta.join_meta(split, HASH, MOMENT.isoformat())
    assert joined == data
    assert WarmMeta.from_json(joined, SOURCE) == value


WORDS = st.sampled_from(["order", "88213", "upset", "delay", "$4.50", "Thanks", "v1.2", "closed"])
ENDS = st.sampled_from([". ", "! ", "? ", "; ", "\n", " ", "...\n", ".  \n "])


@given(
    st.lists(st.tuples(st.lists(WORDS, min_size=1, max_size=4), ENDS), max_size=8),
    st.lists(WORDS, max_size=4),
)
def test_any_checked_text_round_trips_through_the_compact_meta(
    parts: list[tuple[list[str], str]], summary_words: list[str]
) -> None:
    source = "".join(" ".join(words) + end for words, end in parts)
    schema = builtin_schema("generic")
    record = DEFAULT_EXTRACTOR.extract(source, schema, None)
    found = coverage(source, record, " ".join(summary_words))
    value = meta(CheckCoverage.of(found, record.fact_count(), source))
    split = compact_meta.split_meta(value.to_json(), HASH, MOMENT.isoformat())
    joined = compact_meta.join_meta(split, HASH, MOMENT.isoformat())
    loaded = WarmMeta.from_json(joined, source)
    assert loaded == value
    assert loaded.coverage is not None
    assert loaded.coverage.dropped == found.dropped


def test_a_compact_coverage_that_miscounts_its_runs_does_not_load() -> None:
    split = compact_meta.split_meta(meta(checked()).to_json(), HASH, MOMENT.isoformat())
    short = json.loads(split.rest)
    for bad, message in (
        ([3, 1, 4, 0, short["v"][4]], "do not match"),
        ([3, 1, 4, 1], "do not match"),
        ([3, 1, 4, 1, ""], "no runs"),
    ):
        rest = json.dumps({**short, "v": bad}).encode()
        joined = compact_meta.join_meta
        with pytest.raises(ValueError, match=message):
            WarmMeta.from_json(
                joined(
                    compact_meta.SplitMeta(split.identities, split.facts_digest, rest),
                    HASH,
                    MOMENT.isoformat(),
                ),
                SOURCE,
            )


def test_adjacent_dropped_sentences_are_one_span() -> None:
    source = (
        "Hello there friend. Thanks! The parcel was late.\nThe customer was upset. Order 88213."
    )
    record = DEFAULT_EXTRACTOR.extract(source, builtin_schema("generic"), None)
    found = coverage(source, record, "Order 88213.")
    covered = CheckCoverage.of(found, record.fact_count(), source)
    assert covered.texts == (
        "Hello there friend.",
        "The parcel was late.",
        "The customer was upset.",
    )
    assert len(covered.spans) == 2  # "Thanks!" (no content word) sits between the first two
    assert CheckCoverage.from_json(covered.to_json(), source) == covered


def test_a_row_written_before_coverage_loads_and_encodes_as_before() -> None:
    old = meta()
    data = old.to_json()
    assert "coverage" not in data
    split = compact_meta.split_meta(data, HASH, MOMENT.isoformat())
    assert b'"v"' not in split.rest
    loaded = WarmMeta.from_json(compact_meta.join_meta(split, HASH, MOMENT.isoformat()), SOURCE)
    assert loaded == old
    assert loaded.coverage is None
    assert replace(loaded, coverage=checked()).to_json() != data


def test_share_and_phrase() -> None:
    covered = checked()
    assert covered.share == pytest.approx(1 / 3)
    assert covered.phrase() == "1 sentence not covered by the schema was dropped"
    empty = CheckCoverage(0, 0, 0)
    assert (empty.share, empty.phrase(), empty.texts) == (1.0, "", ())
