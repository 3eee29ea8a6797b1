"""Coverage: the source sentences a check verified, and the unverified ones it dropped."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from factdiff.schema.builtin import generic_schema
from factdiff.verify.check import check
from factdiff.verify.coverage import Coverage, SpanIndex, Unverified

SOURCE = (
    "Order ORD-5521 arrived damaged on March 3, 2026. The box was wet and the tape was "
    "torn. Thanks! The customer will call back on March 10, 2026."
)


def test_a_dropped_sentence_without_facts_is_unverified_and_dropped() -> None:
    summary = "Order ORD-5521 arrived damaged on March 3, 2026; call back March 10, 2026."
    result = check(SOURCE, summary, generic_schema())
    assert result.coverage is not None
    assert (result.coverage.sentences, result.coverage.verified) == (3, 2)
    assert result.unverified == ("The box was wet and the tape was torn.",)
    assert [u.dropped for u in result.coverage.unverified] == [True]
    assert result.summary_line() == (
        "clean: 3 facts kept; 1 sentence not covered by the schema was dropped"
    )


def test_a_kept_sentence_without_facts_is_unverified_but_not_dropped() -> None:
    summary = (
        "ORD-5521 arrived damaged March 3, 2026. The box was wet, the tape was torn. "
        "Call back March 10, 2026."
    )
    result = check(SOURCE, summary, generic_schema())
    assert result.coverage is not None
    assert [u.dropped for u in result.coverage.unverified] == [False]
    assert result.summary_line() == "clean: 3 facts kept"


def test_coverage_round_trips_through_json() -> None:
    coverage = Coverage(
        4, 2, (Unverified("We met.", 10, 17, True), Unverified("Ok go.", 20, 26, False))
    )
    assert Coverage.from_json(coverage.to_json()) == coverage
    assert coverage.share == 0.5
    assert coverage.phrase() == "1 sentence not covered by the schema was dropped"


def test_check_json_reports_coverage() -> None:
    data = check(SOURCE, "Order ORD-5521.", generic_schema()).to_json()
    assert data["coverage"] == {
        "sentences": 3,
        "verified": 2,
        "unverified": [
            {
                "text": "The box was wet and the tape was torn.",
                "span": [49, 87],
                "dropped": True,
            }
        ],
    }


@given(
    spans=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)), max_size=12),
    start=st.integers(0, 80),
    length=st.integers(0, 20),
)
def test_span_index_answers_as_a_scan_of_every_span(
    spans: list[tuple[int, int]], start: int, length: int
) -> None:
    pairs = [(s, s + n) for s, n in spans]
    end = start + length
    expected = any(s < end and start < e for s, e in pairs)
    assert SpanIndex(pairs).overlaps(start, end) is expected
