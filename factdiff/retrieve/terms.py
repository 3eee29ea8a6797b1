"""Query words for the text index, and whether a text states them.

The text index tokenises like SQLite FTS5's ``unicode61`` tokenizer: runs of letters and
digits, case-folded (``INV-9182`` is ``inv`` + ``9182``, ``mia_garcia`` is ``mia`` +
``garcia``). Both backends stem what they index (FTS5 ``porter``, PostgreSQL ``english``), so a
query word is passed to the database as written and stemmed there.

``query_terms`` lists the words of a query, each once, at most :data:`MAX_TERMS`. There is no
stop-word list: how many entries hold a word decides whether it is searched (see
``factdiff.retrieve.search``), so ``only`` or ``same`` still count where they are rare.

``stated_terms`` is the light matching used on the Python side to say *where* a word matched
(the narrative or only the archived source): a word matches a text that has a word starting
with its stem (``bookings``, ``booked`` and ``booking`` all start with ``book``). It never
decides whether an entry matches; the database does.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_TERMS = 32
"""A query keeps at most this many distinct words for the text index."""

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The case-folded words of ``text`` (NFKC), in order."""
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKC", text))]


def query_terms(query: str) -> tuple[str, ...]:
    """The distinct words of ``query``, in query order (at most ``MAX_TERMS``)."""
    seen: dict[str, None] = {}
    for word in words(query):
        if word in seen:
            continue
        seen[word] = None
        if len(seen) == MAX_TERMS:
            break
    return tuple(seen)


_SUFFIXES = ("ies", "ing", "ed", "es", "s")


def word_form(word: str) -> str:
    """A crude stem: ``bookings``, ``booked``, ``booking`` -> ``book``; short words as is."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stated_terms(terms: Iterable[str], text: str) -> list[str]:
    """The ``terms`` a word of ``text`` starts with, after ``word_form`` (case-folded)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    found = []
    for term in terms:
        stem = word_form(term)
        if stem in folded and re.search(rf"(?<![^\W_]){re.escape(stem)}", folded):
            found.append(term)
    return found


def fts5_any(terms: Iterable[str]) -> str:
    """An FTS5 query matching any of ``terms`` (each a quoted string: no operators inside)."""
    return " OR ".join(f'"{t}"' for t in terms)


def tsquery_any(terms: Iterable[str]) -> str:
    """A ``to_tsquery`` text matching any of ``terms`` (letters and digits only)."""
    return " | ".join(terms)


def fts5_expression(selective: Iterable[str], every: Iterable[str], all_of: bool = False) -> str:
    """Entries with a selective term (all of them with ``all_of``), ranked over every term.

    ``(s1 OR s2) AND (s1 OR s2 OR c1 ...)``: the common terms only re-rank the entries the
    selective ones found, so the database never ranks every entry that says ``train``.
    When every term is selective this is just ``t1 OR t2 ...``.
    """
    chosen, all_terms = list(selective), list(every)
    if chosen == all_terms and not all_of:
        return fts5_any(all_terms)
    found = " AND ".join(f'"{t}"' for t in chosen) if all_of else fts5_any(chosen)
    return f"({found}) AND ({fts5_any(all_terms)})"


def tsquery_expression(selective: Iterable[str], every: Iterable[str], all_of: bool = False) -> str:
    """``fts5_expression`` for PostgreSQL's ``to_tsquery``."""
    chosen, all_terms = list(selective), list(every)
    if chosen == all_terms and not all_of:
        return tsquery_any(all_terms)
    found = " & ".join(chosen) if all_of else tsquery_any(chosen)
    return f"({found}) & ({tsquery_any(all_terms)})"


@dataclass(frozen=True)
class TextQuery:
    """A text query: entries with the ``selective`` words (all of them with ``all_of``),
    ranked over ``every`` word, each weighted by ``weights`` (its inverse document
    frequency; the PostgreSQL dialect uses them, bm25 computes its own)."""

    selective: tuple[str, ...]
    every: tuple[str, ...]
    all_of: bool
    weights: Mapping[str, float]

    def expression(self, dialect: str) -> str:
        """The dialect's match expression."""
        expression = tsquery_expression if dialect == "postgres" else fts5_expression
        return expression(self.selective, self.every, self.all_of)

    def params(self, dialect: str) -> dict[str, str]:
        """The statement parameters of this query."""
        weights = {t: round(self.weights.get(t, 1.0), 6) for t in self.every}
        return {"query": self.expression(dialect), "weights": json.dumps(weights, sort_keys=True)}

    def narrowed(self) -> TextQuery:
        """The query over its selective words only (cheap to score per entry)."""
        return TextQuery(self.selective, self.selective, False, self.weights)
