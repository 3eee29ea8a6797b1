"""Names (and release versions) the source states, found again in the summary's words: a
fact restated is kept.

The offline extractor tells a name without a cue only when it reads as one (a known given
name, a title, a holder noun). A summary that restates a name the source gave with its cue
(``Ms. Ayumi Sato rescheduled`` -> ``Ayumi Sato moved``) may leave the extractor nothing to
go by, and the name would count as missing. The source's people and organisations are
therefore looked for in the summary as written: one that the summary writes out in full
(word-bounded, any case, accents or none) and its record does not state joins the record as
an unbound fact, which the diff counts as the value restated and never as a finding of its
own.

A shorter form counts as the value does (``Mr. Chen`` is ``Marcus Chen``): a person's family
name alone, capitalised (``Okafor reported`` restates ``Daniel Okafor``), and an
organisation's name without its legal form (``Nordlys`` restates ``Nordlys AS``), unless
another of the source's names of that type shares the shorter form or the summary writes it
inside a name of its own (``Ana Okafor`` restates no ``Daniel Okafor``).

A release version is restated by its numbers alone (``the app is on 7.3`` restates ``app
version 7.3``; ``v4.2.1`` is ``4.2.1``).

The converse holds too: a name the source writes is not one the summary invents. The source
reads a name in its whole context, and may find there that it names a thing (``Charlie Chan
is a cheap Chinese restaurant``); a summary that keeps only ``a taxi to Charlie Chan`` has
lost that context, not gained a person. So a person or organisation of the summary's
inventory that the source writes out in full (word-bounded, any case) and its record does
not state is left out of the summary's record (``without_names_the_source_writes``), and so
is a release version whose numbers the source writes bare (``re-released 4.2`` for ``v4.2``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import lru_cache

from factdiff.extraction.recognizers.identifiers import is_version
from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import FactSchema
from factdiff.values.base import FactType, Value
from factdiff.values.names import LEGAL_SUFFIXES, PersonValue, family_name

NAMED_TYPES = (FactType.PERSON, FactType.ORGANIZATION)
"""Types whose values the summary's extractor may miss without the source's cue."""


def with_restated_names(
    source: FactRecord, summary: FactRecord, summary_text: str, schema: FactSchema
) -> FactRecord:
    """``summary`` with the people, organisations and release versions of ``source`` that
    ``summary_text`` writes out and ``summary`` does not state, as unbound facts (see the
    module docstring)."""
    field_types = {spec.name: spec.type for spec in schema.fields}
    added: dict[FactType, list[Fact]] = {}
    for fact_type in NAMED_TYPES:
        stated = list(_named(summary, fact_type, field_types))
        taken = [span for fact in stated for span in fact.spans]
        named = list(_named(source, fact_type, field_types))
        shorts = [_short_form(fact.value) for fact in named]
        for fact, short in zip(named, shorts, strict=True):
            if any(s.value.same_as(fact.value) for s in stated):
                continue
            span = _written(summary_text, str(fact.value.canonical()))
            value = fact.value
            if span is None and short is not None and shorts.count(short) == 1:
                span = _written(summary_text, short, capitalised=True, outside=taken)
                value = PersonValue(short) if isinstance(fact.value, PersonValue) else value
            if span is not None:
                start, end = span
                found = Fact(value, (span,), summary_text[start:end])
                stated.append(found)
                added.setdefault(fact_type, []).append(found)
    versions = _versions_written(source, summary, summary_text, field_types)
    if versions:
        added[FactType.IDENTIFIER] = versions
    if not added:
        return summary
    unbound = dict(summary.unbound)
    for fact_type, facts in added.items():
        unbound[fact_type] = (*unbound.get(fact_type, ()), *facts)
    return replace(summary, unbound=unbound)


def without_names_the_source_writes(
    source: FactRecord, summary: FactRecord, source_text: str, schema: FactSchema
) -> FactRecord:
    """``summary`` without the inventory's people, organisations and release versions that
    ``source_text`` writes out and ``source`` does not state (see the module docstring)."""
    field_types = {spec.name: spec.type for spec in schema.fields}
    inventory = dict(summary.inventory)
    changed = False
    for fact_type in NAMED_TYPES:
        facts = inventory.get(fact_type, ())
        if not facts:
            continue
        stated = list(_named(source, fact_type, field_types))
        kept = tuple(
            fact
            for fact in facts
            if any(s.value.same_as(fact.value) for s in stated)
            or _written(source_text, str(fact.value.canonical())) is None
        )
        if len(kept) < len(facts):
            inventory[fact_type] = kept
            changed = True
    facts = inventory.get(FactType.IDENTIFIER, ())
    if any(is_version(fact.value) for fact in facts):
        stated = list(_named(source, FactType.IDENTIFIER, field_types))
        kept = tuple(
            fact
            for fact in facts
            if not is_version(fact.value)
            or any(s.value.same_as(fact.value) for s in stated)
            or _written_version(source_text, fact.value) is None
        )
        if len(kept) < len(facts):
            inventory[FactType.IDENTIFIER] = kept
            changed = True
    if not changed:
        return summary
    return replace(summary, inventory={t: f for t, f in inventory.items() if f})


def _versions_written(
    source: FactRecord, summary: FactRecord, summary_text: str, field_types: dict[str, FactType]
) -> list[Fact]:
    """The source's release versions that ``summary_text`` writes as bare numbers and
    ``summary`` does not state (``app on 7.3`` restates ``version 7.3``), as facts."""
    stated = list(_named(summary, FactType.IDENTIFIER, field_types))
    found: list[Fact] = []
    for fact in _named(source, FactType.IDENTIFIER, field_types):
        if not is_version(fact.value) or any(s.value.same_as(fact.value) for s in stated):
            continue
        span = _written_version(summary_text, fact.value)
        if span is not None:
            found.append(Fact(fact.value, (span,), summary_text[span[0] : span[1]]))
            stated.append(found[-1])
    return found


def _written_version(text: str, value: Value) -> tuple[int, int] | None:
    """Where ``text`` writes a release version's numbers bare (``7.3`` for ``v7.3``), or
    None."""
    numbers = str(value.canonical())[1:]
    found = re.search(r"(?<![\w.])" + re.escape(numbers) + r"(?![\w-]|\.\d)", text)
    return found.span() if found is not None else None


def _named(
    record: FactRecord, fact_type: FactType, field_types: dict[str, FactType]
) -> Iterator[Fact]:
    """Every fact of ``fact_type`` in ``record``: fields, inventory and unbound atoms."""
    yield from record.atoms(fact_type, field_types)
    yield from record.unbound.get(fact_type, ())


@lru_cache(maxsize=16)
def _unmarked(text: str) -> str:
    """``text`` with each letter's accents dropped, one character for one (``José`` is
    ``Jose``), so spans found in it are spans of ``text`` (cached: one text is searched for
    each of a record's names)."""
    if text.isascii():
        return text
    return "".join(_base_letter(char) for char in text)


def _base_letter(char: str) -> str:
    """A Latin letter without its accents (``é``: ``e``); any other character as it is."""
    base = unicodedata.normalize("NFD", char)[0]
    return base if base.isascii() else char


def _short_form(value: Value) -> str | None:
    """The shorter form of a name that still names it (see the module docstring): a person's
    family name, an organisation's name without its trailing legal forms; None when there is
    none (a one-word name) or it is a single letter."""
    if isinstance(value, PersonValue):
        short = family_name(value.name)
    else:
        words = str(value.canonical()).split()
        kept = list(words)
        while len(kept) > 1 and kept[-1].strip(",").replace(".", "").casefold() in LEGAL_SUFFIXES:
            kept.pop()
        short = " ".join(kept).strip(".,") if kept != words else None
    return short if short is not None and len(short) > 1 else None


def _written(
    text: str, name: str, *, capitalised: bool = False, outside: Sequence[tuple[int, int]] = ()
) -> tuple[int, int] | None:
    """The first span where ``text`` writes ``name`` out whole (any case, blanks between its
    words of any width; starting with a capital if ``capitalised``) and overlaps none of the
    spans ``outside``, or None."""
    words = _unmarked(name).split()
    if not words:
        return None
    pattern = r"(?<![\w'’-])" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])"
    for found in re.finditer(pattern, _unmarked(text), re.IGNORECASE):
        start, end = found.span()
        if capitalised and not text[start].isupper():
            continue
        if any(s < end and start < e for s, e in outside):
            continue
        return start, end
    return None
