"""Names the source states, found again in the summary's words: a fact restated is kept.

The offline extractor tells a name without a cue only when it reads as one (a known given
name, a title, a holder noun). A summary that restates a name the source gave with its cue
(``Ms. Ayumi Sato rescheduled`` -> ``Ayumi Sato moved``) may leave the extractor nothing to
go by, and the name would count as missing. The source's people and organisations are
therefore looked for in the summary as written: one that the summary writes out in full
(word-bounded, any case) and its record does not state joins the record as an unbound fact,
which the diff counts as the value restated and never as a finding of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import FactSchema
from factdiff.values.base import FactType

NAMED_TYPES = (FactType.PERSON, FactType.ORGANIZATION)
"""Types whose values the summary's extractor may miss without the source's cue."""


def with_restated_names(
    source: FactRecord, summary: FactRecord, summary_text: str, schema: FactSchema
) -> FactRecord:
    """``summary`` with the people and organisations of ``source`` that ``summary_text``
    writes out and ``summary`` does not state, as unbound facts (see the module
    docstring)."""
    field_types = {spec.name: spec.type for spec in schema.fields}
    added: dict[FactType, list[Fact]] = {}
    for fact_type in NAMED_TYPES:
        stated = list(_named(summary, fact_type, field_types))
        for fact in _named(source, fact_type, field_types):
            if any(s.value.same_as(fact.value) for s in stated):
                continue
            span = _written(summary_text, str(fact.value.canonical()))
            if span is not None:
                start, end = span
                found = Fact(fact.value, (span,), summary_text[start:end])
                stated.append(found)
                added.setdefault(fact_type, []).append(found)
    if not added:
        return summary
    unbound = dict(summary.unbound)
    for fact_type, facts in added.items():
        unbound[fact_type] = (*unbound.get(fact_type, ()), *facts)
    return replace(summary, unbound=unbound)


def _named(
    record: FactRecord, fact_type: FactType, field_types: dict[str, FactType]
) -> Iterator[Fact]:
    """Every fact of ``fact_type`` in ``record``: fields, inventory and unbound atoms."""
    yield from record.atoms(fact_type, field_types)
    yield from record.unbound.get(fact_type, ())


def _written(text: str, name: str) -> tuple[int, int] | None:
    """The span where ``text`` writes ``name`` out whole (any case, blanks between its words
    of any width), or None."""
    words = name.split()
    if not words:
        return None
    pattern = r"(?<![\w'’-])" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])"
    found = re.search(pattern, text, re.IGNORECASE)
    return None if found is None else found.span()
