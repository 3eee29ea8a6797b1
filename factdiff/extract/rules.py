"""The deterministic extractor: typed recognizers, schema patterns and cues. No model, no network.

1. Decide the reference date: the entry's own date if given, else the first full date the
   text states (so ``March 6`` in a note written on 2026-03-14 is 2026-03-06).
2. Run the recognizers for every type the schema needs and resolve overlaps.
3. Fill fields: pattern fields first, then cue fields (nearest cue wins, each occurrence
   serves one field), then the remaining fields take the first (or every) value of their type.
4. Every typed atom of a tracked inventory type that no field claimed lands in the inventory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from factdiff.extract.cues import CueIndex, cue_pattern, sentence_ends
from factdiff.extract.overlap import resolve_overlaps
from factdiff.extract.recognizers import registry
from factdiff.extract.recognizers.base import ExtractionContext, Match
from factdiff.record import Fact, FactRecord
from factdiff.schema.model import FactSchema, FieldSpec
from factdiff.values.base import FactType, Value
from factdiff.values.fieldtypes import BooleanValue, EnumValue, TextValue, fold
from factdiff.values.temporal import DateValue

NEGATIONS = re.compile(
    r"\b(?:not|no|never|without|didn't|did not|won't|cannot|can't)\W+(?:\w+\W+){0,2}$", re.I
)
TEXT_CLAUSE_LIMIT = 200


@dataclass(frozen=True)
class _Occurrence:
    field: FieldSpec
    match: Match
    distance: int


class RulesExtractor:
    """The offline default extractor (``rules``)."""

    identity = "rules/1"

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The fact record of ``text`` under ``schema``."""
        context = ExtractionContext(
            reference=reference if reference is not None else infer_reference(text),
            decimal_comma=registry.detect_decimal_comma(text),
        )
        atoms = self._atoms(text, schema, context)
        ends = sentence_ends(text)
        chosen: dict[str, list[Match]] = {spec.name: [] for spec in schema.fields}
        claimed: set[tuple[int, int]] = set()

        for spec in schema.fields:
            if spec.pattern is not None:
                chosen[spec.name] = list(_pattern_matches(text, spec, context))
                claimed.update((m.start, m.end) for m in chosen[spec.name])
        self._fill_by_cues(
            text, schema=schema, atoms=atoms, ends=ends, chosen=chosen, claimed=claimed
        )
        for spec in schema.fields:
            if spec.pattern is None and not spec.cues:
                pool = [
                    m for m in _candidates(text, spec, atoms) if (m.start, m.end) not in claimed
                ]
                chosen[spec.name] = pool if spec.many else pool[:1]
                claimed.update((m.start, m.end) for m in chosen[spec.name])

        fields = {
            spec.name: _facts(text, chosen[spec.name], atoms.get(spec.type, []))
            for spec in schema.fields
        }
        return FactRecord(
            schema=schema.ref,
            fields=fields,
            inventory=_inventory(text, schema, atoms, fields, claimed),
            reference=context.reference,
            extractor=self.identity,
        )

    @staticmethod
    def _atoms(
        text: str, schema: FactSchema, context: ExtractionContext
    ) -> dict[FactType, list[Match]]:
        needed = set(schema.inventory) | {spec.type for spec in schema.fields}
        if needed & registry.TEMPORAL_TYPES:
            needed |= {FactType.DATE, FactType.TIME, FactType.DATETIME}
        found: list[Match] = []
        tool_calls: list[Match] = []
        for fact_type in sorted(needed):
            recognizer = registry.RECOGNIZERS.get(fact_type)
            if recognizer is None:
                continue
            matches = list(recognizer.find(text, context))
            (tool_calls if fact_type is FactType.TOOL_CALL else found).extend(matches)
        atoms: dict[FactType, list[Match]] = {}
        for match in resolve_overlaps(found, registry.PRIORITY):
            atoms.setdefault(match.value.type, []).append(match)
        if tool_calls:
            atoms[FactType.TOOL_CALL] = sorted(tool_calls, key=lambda m: (m.start, m.end))
        return atoms

    @staticmethod
    def _fill_by_cues(
        text: str,
        *,
        schema: FactSchema,
        atoms: dict[FactType, list[Match]],
        ends: list[int],
        chosen: dict[str, list[Match]],
        claimed: set[tuple[int, int]],
    ) -> None:
        occurrences: list[_Occurrence] = []
        for spec in schema.fields:
            if spec.pattern is not None or not spec.cues:
                continue
            index = CueIndex(text, spec.cues, ends)
            for match in _candidates(text, spec, atoms):
                distance = index.distance(match.start, match.end)
                if distance is not None:
                    occurrences.append(_Occurrence(spec, match, distance))
        occurrences.sort(key=lambda o: (o.distance, o.match.start, o.field.name))
        for occurrence in occurrences:
            span = (occurrence.match.start, occurrence.match.end)
            taken = chosen[occurrence.field.name]
            if span in claimed or (taken and not occurrence.field.many):
                continue
            taken.append(occurrence.match)
            claimed.add(span)
        for matches in chosen.values():
            matches.sort(key=lambda m: m.start)


def infer_reference(text: str) -> date | None:
    """The first complete calendar date stated in ``text`` (its own anchor), if any."""
    for match in registry.RECOGNIZERS[FactType.DATE].find(text, ExtractionContext()):
        value = match.value
        if isinstance(value, DateValue) and value.year is not None:
            return date(value.year, value.month, value.day)
    return None


def _candidates(text: str, spec: FieldSpec, atoms: dict[FactType, list[Match]]) -> list[Match]:
    if spec.type is FactType.ENUM:
        return list(_enum_matches(text, spec))
    if spec.type is FactType.BOOLEAN:
        return list(_boolean_matches(text, spec))
    if spec.type is FactType.TEXT:
        return list(_text_matches(text, spec))
    return atoms.get(spec.type, [])


def _pattern_matches(text: str, spec: FieldSpec, context: ExtractionContext) -> Iterable[Match]:
    pattern = spec.compiled_pattern
    assert pattern is not None
    for found in pattern.finditer(text):
        group = 1 if pattern.groups else 0
        start, end = found.span(group)
        if start < 0 or end <= start:
            continue
        raw = text[start:end]
        value: Value | None
        if spec.type is FactType.IDENTIFIER:
            value = registry.parse_value(FactType.IDENTIFIER, raw, context)
        elif spec.type is FactType.ENUM:
            value = _enum_value(spec, raw)
        else:
            value = registry.parse_value(spec.type, raw, context)
        if value is not None:
            yield Match(start, end, value)
        if not spec.many:
            return


def _enum_value(spec: FieldSpec, raw: str) -> EnumValue | None:
    folded = fold(raw)
    for option in spec.options:
        if folded == fold(option.value) or folded in {fold(s) for s in option.synonyms}:
            return EnumValue(option.value)
    return None


def _enum_matches(text: str, spec: FieldSpec) -> Iterable[Match]:
    phrases = {fold(p): o.value for o in spec.options for p in (o.value, *o.synonyms) if p.strip()}
    if not phrases:
        return
    for found in cue_pattern(tuple(phrases)).finditer(text):
        yield Match(found.start(), found.end(), EnumValue(phrases[fold(found.group())]))


def _boolean_matches(text: str, spec: FieldSpec) -> Iterable[Match]:
    if not spec.cues:
        return
    for found in cue_pattern(spec.cues).finditer(text):
        negated = NEGATIONS.search(text, max(0, found.start() - 40), found.start()) is not None
        yield Match(found.start(), found.end(), BooleanValue(not negated))


def _text_matches(text: str, spec: FieldSpec) -> Iterable[Match]:
    if not spec.cues:
        return
    for found in cue_pattern(spec.cues).finditer(text):
        start = found.end()
        while start < len(text) and text[start] in " :=-\t\"'":
            start += 1
        end = start
        limit = min(len(text), start + TEXT_CLAUSE_LIMIT)
        while end < limit and text[end] not in ".;,\n!?":
            end += 1
        while end > start and text[end - 1] in " \"'":
            end -= 1
        if end > start:
            yield Match(start, end, TextValue(text[start:end]))


def _facts(text: str, matches: list[Match], same_type: list[Match]) -> tuple[Fact, ...]:
    """Group matches by value; each fact's evidence is every span stating that value."""
    spans_by_key: dict[object, set[tuple[int, int]]] = {}
    for match in (*same_type, *matches):
        spans_by_key.setdefault(match.value.key(), set()).add((match.start, match.end))
    facts: dict[object, Fact] = {}
    for match in matches:
        key = match.value.key()
        if key not in facts:
            spans = tuple(sorted(spans_by_key[key]))
            facts[key] = Fact(match.value, spans, text[match.start : match.end])
    return tuple(facts.values())


def _inventory(
    text: str,
    schema: FactSchema,
    atoms: dict[FactType, list[Match]],
    fields: dict[str, tuple[Fact, ...]],
    claimed: set[tuple[int, int]],
) -> dict[FactType, tuple[Fact, ...]]:
    field_keys = {
        (spec.type, fact.value.key()) for spec in schema.fields for fact in fields[spec.name]
    }
    inventory: dict[FactType, tuple[Fact, ...]] = {}
    for fact_type in schema.inventory:
        free = [
            m
            for m in atoms.get(fact_type, [])
            if (m.start, m.end) not in claimed and (fact_type, m.value.key()) not in field_keys
        ]
        if free:
            inventory[fact_type] = _facts(text, free, free)
    return inventory
