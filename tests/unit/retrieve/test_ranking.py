"""Ranking helpers that need no store: tie order, and which words the text index is asked."""

from __future__ import annotations

from factdiff.retrieve.query import read_query
from factdiff.retrieve.ranking import Candidate, FactStats, ordered, text_terms
from factdiff.schema.builtin import builtin_schema

GENERIC = builtin_schema("generic")


def test_ties_go_newest_entry_first() -> None:
    found = [Candidate(n, f"e{n}", "a", "hot", score=score) for n, score in enumerate([1, 2, 2])]
    assert [c.entry_id for c in ordered(found, lambda c: -c.score)] == ["e2", "e1", "e0"]
    counted = [
        Candidate(0, "e0", "a", "hot", strong={1}, weak={1, 2}),
        Candidate(1, "e1", "a", "hot", strong={1}),
        Candidate(2, "e2", "a", "hot", strong={1, 2}),
    ]
    by_facts = ordered(counted, lambda c: (-len(c.strong), -len(c.weak)))
    assert [c.entry_id for c in by_facts] == ["e2", "e0", "e1"]


def test_the_words_of_a_fact_one_entry_holds_are_not_searched_as_text() -> None:
    query = read_query("invoice INV-9182 for $14,250", [GENERIC])
    single = FactStats(held_by=1, weight=1.0, distinctive=True)
    common = FactStats(held_by=40, weight=0.2, distinctive=True)
    weak = FactStats(held_by=1, weight=1.0, distinctive=False)
    assert text_terms(query, [single, single]) == ("invoice", "for")
    assert text_terms(query, [single, common]) == ("invoice", "for", "14", "250")
    assert text_terms(query, [weak, weak]) == query.terms
