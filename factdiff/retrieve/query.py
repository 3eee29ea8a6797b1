"""A search query as the indexes read it: its words, and its facts with the keys they look up."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from factdiff.retrieve.index import INDEX_EXTRACTOR
from factdiff.retrieve.keys import INDEXED_TYPES, key_hash, key_text, query_keys, record_facts
from factdiff.retrieve.terms import query_terms, words
from factdiff.schema.model import FactSchema
from factdiff.values.base import FactType, Value

__all__ = ["Query", "QueryFact", "read_query"]


@dataclass(frozen=True)
class QueryFact:
    """One fact of the query and the index keys it looks up."""

    value: Value
    text: str
    keys: frozenset[str]
    hashes: tuple[int, ...]


@dataclass(frozen=True)
class Query:
    """A query as the indexes read it."""

    text: str
    terms: tuple[str, ...]
    words: frozenset[str]
    facts: tuple[QueryFact, ...]

    @property
    def fact_types(self) -> frozenset[FactType]:
        """The types of the query's facts (a datetime also counts as a date and a time)."""
        found: set[FactType] = set()
        for fact in self.facts:
            found.add(fact.value.type)
            if fact.value.type is FactType.DATETIME:
                found |= {FactType.DATE, FactType.TIME}
        return frozenset(found)


def read_query(query: str, schemas: Iterable[FactSchema]) -> Query:
    """The words and facts of ``query`` (facts read under each schema, merged by key)."""
    facts: dict[str, QueryFact] = {}
    for schema in schemas:
        record = INDEX_EXTRACTOR.extract(query, schema, None)
        for _, fact in record_facts(record):
            value = fact.value
            if value.type not in INDEXED_TYPES or key_text(value) in facts:
                continue
            keys = frozenset(query_keys(value))
            hashes = tuple(sorted({key_hash(k) for k in keys}))
            facts[key_text(value)] = QueryFact(value, fact.text, keys, hashes)
    return Query(query, query_terms(query), frozenset(words(query)), tuple(facts.values()))
