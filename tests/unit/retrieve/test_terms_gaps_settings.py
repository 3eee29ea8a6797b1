"""Query words, known gaps and retrieval settings: the small pure parts of retrieval."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from factdiff.errors import UsageError
from factdiff.retrieve.gaps import KnownGap, gap_words, known_gaps
from factdiff.retrieve.terms import (
    MAX_TERMS,
    fts5_expression,
    query_terms,
    stated_terms,
    tsquery_expression,
)
from factdiff.schema.builtin import builtin_schema
from factdiff.schema.model import Criticality, FactSchema
from factdiff.settings import (
    RetrievalSettings,
    TouchMode,
    parse_promote_after,
    parse_window,
    resolve_retrieval_settings,
)
from factdiff.store.model import WarmMeta
from factdiff.values.base import FactType

# -- words -------------------------------------------------------------------------------


def test_query_terms_are_the_distinct_folded_words() -> None:
    assert query_terms("What was the reference for invoice INV-9182?") == (
        "what", "was", "the", "reference", "for", "invoice", "inv", "9182",
    )  # fmt: skip
    assert query_terms("the THE The") == ("the",)
    assert query_terms("mia_garcia_4516") == ("mia", "garcia", "4516")
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == MAX_TERMS


def test_stated_terms_meet_plurals_and_tenses() -> None:
    assert stated_terms(["booking", "cities", "train"], "They booked two city trains.") == [
        "booking",
        "cities",
        "train",
    ]
    assert stated_terms(["refund"], "no money back") == []
    assert stated_terms(["ook"], "booked") == []  # a word must start with the stem


def test_text_expressions_rank_common_words_only_among_selective_hits() -> None:
    assert fts5_expression(["a", "b"], ["a", "b"]) == '"a" OR "b"'
    assert fts5_expression(["b"], ["a", "b"]) == '("b") AND ("a" OR "b")'
    assert tsquery_expression(["b"], ["a", "b"]) == "(b) & (a | b)"


# -- gaps --------------------------------------------------------------------------------


def meta_with(**gaps: object) -> WarmMeta:
    """A stored warm meta with the given gap keys (and the keys every meta has)."""
    base = {
        "schema": {"name": "customer_service", "version": 2, "hash": "sha256:0"},
        "compressed_at": "2026-03-14T00:00:00+00:00",
    }
    return WarmMeta.from_json({**base, **gaps})


def test_old_untyped_gaps_are_typed_by_the_schema(customer_service: FactSchema) -> None:
    meta = meta_with(lost_important_fields=["call_time", "inventory.time", "call_time", "gone"])
    gaps = known_gaps(meta, customer_service)
    assert [g.field for g in gaps] == ["call_time", "inventory.time", "gone"]
    call, atom, gone = gaps
    assert call.criticality is Criticality.IMPORTANT
    assert call.fact_type is FactType.DATETIME
    assert atom.fact_type is FactType.TIME
    assert gone.fact_type is None  # the schema no longer has the field
    assert gap_words(call) == ("call", "time")
    assert gap_words(atom) == ("time",)


def test_typed_gaps_are_read_as_recorded(customer_service: FactSchema) -> None:
    recorded = KnownGap("call_time", Criticality.CRITICAL, FactType.TIME)
    meta = meta_with(known_gaps=[recorded.to_json()])
    assert known_gaps(meta, customer_service) == (recorded,)  # compression time wins
    assert known_gaps(meta_with(), builtin_schema("generic")) == ()
    assert known_gaps(meta_with(lost_important_fields=["x"]), None) == (
        KnownGap("x", Criticality.IMPORTANT, None),
    )


# -- settings ----------------------------------------------------------------------------


def env_with(tmp_path: Path, text: str, **extra: str) -> dict[str, str]:
    path = tmp_path / "factdiff.toml"
    path.write_text(text)
    return {"FACTDIFF_CONFIG": str(path), **extra}


def test_settings_flag_then_env_then_file_then_default(tmp_path: Path) -> None:
    assert resolve_retrieval_settings(environ={}) == RetrievalSettings()
    env = env_with(tmp_path, 'promote_after = 5\npromote_window = "2d"\nsearch_touch = "top"\n')
    from_file = resolve_retrieval_settings(environ=env)
    assert from_file == RetrievalSettings(5, timedelta(days=2), TouchMode.TOP)
    env["FACTDIFF_PROMOTE_AFTER"] = "never"
    env["FACTDIFF_SEARCH_TOUCH"] = "none"
    from_env = resolve_retrieval_settings(environ=env)
    assert from_env.promote_after is None
    assert from_env.touch is TouchMode.NONE
    flagged = resolve_retrieval_settings(
        promote_after="0", promote_window="90m", touch="hits", environ=env
    )
    assert flagged == RetrievalSettings(0, timedelta(minutes=90), TouchMode.HITS)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: parse_promote_after("-1"), "is not a count of fetches"),
        (lambda: parse_promote_after("lots"), "is not a count of fetches"),
        (lambda: parse_window("0s"), "longer than zero"),
        (lambda: parse_window("a week"), "is not a duration"),
        (lambda: resolve_retrieval_settings(touch="all", environ={}), "not one of hits"),
        (lambda: RetrievalSettings(promote_after=-2), "0 or more"),
    ],
)
def test_bad_settings_are_one_line_errors(call: object, needle: str) -> None:
    with pytest.raises(UsageError, match=needle) as caught:
        call()  # type: ignore[operator]
    assert "\n" not in str(caught.value)


def test_a_bad_settings_file_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="promote_window"):
        resolve_retrieval_settings(environ=env_with(tmp_path, 'promote_window = "soon"\n'))
