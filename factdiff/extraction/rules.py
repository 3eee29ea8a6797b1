"""The deterministic extractor: typed recognizers, schema patterns and cues. No model, no network.

1. Refuse texts over :data:`MAX_TEXT_CHARS`; normalise the text for recognition (NFKC,
   see ``factdiff.extraction.normalize``); spans always point into the original text.
2. Decide the reference date: the entry's own date if given, else the first full date the
   text states (so ``March 6`` in a note written on 2026-03-14 is 2026-03-06).
3. Run the recognizers for every type the schema needs and resolve overlaps.
4. Fill fields, recording how each fact was bound (``factdiff.extraction.record.Binding``): pattern
   fields first (RE2, see ``factdiff.schema.patterns``), then cue fields (nearest cue wins,
   each occurrence serves one field), enum and boolean fields by their phrases with their
   polarity (``factdiff.extraction.negation``), then the remaining fields take the first (or
   every) value of their type.
   Decisions (``factdiff.extraction.decisions``) are found beside the recognizers: their
   verb spans never compete with other values.
5. Every typed atom of a tracked inventory type that no field claimed lands in the inventory,
   with the roles the text gives it (``factdiff.extraction.roles``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache

from factdiff.errors import InputError
from factdiff.extraction.clauses import Boundaries
from factdiff.extraction.cues import CueIndex, cue_spans
from factdiff.extraction.decisions import Lexicon, find_decisions
from factdiff.extraction.negation import negated
from factdiff.extraction.normalize import Normalized, normalize
from factdiff.extraction.overlap import resolve_overlaps
from factdiff.extraction.person_roles import person_roles
from factdiff.extraction.recognizers import registry
from factdiff.extraction.recognizers.base import ExtractionContext, Match
from factdiff.extraction.recognizers.identifiers import is_version
from factdiff.extraction.record import TYPE_ONLY, Binding, BindingKind, Fact, FactRecord
from factdiff.extraction.roles import ROLE_TYPES, RoleCues
from factdiff.schema.model import FactSchema, FieldSpec
from factdiff.values.base import FactType, Value
from factdiff.values.fieldtypes import BooleanValue, EnumValue, TextValue, fold
from factdiff.values.temporal import DateValue

MAX_TEXT_CHARS = 2_000_000
"""The rules extractor refuses longer texts (``InputError``): split such an entry."""
TEXT_CLAUSE_LIMIT = 200


@dataclass(frozen=True)
class _Occurrence:
    field: FieldSpec
    match: Match
    binding: Binding
    aside: bool = False
    """The cue and the value stand on two sides of a parenthesis (see ``CueHit.aside``)."""


@dataclass
class _Chosen:
    """The matches a field took, with how each was bound."""

    matches: list[Match]
    bindings: dict[tuple[int, int], Binding]

    def add(self, match: Match, binding: Binding) -> None:
        self.matches.append(match)
        self.bindings[(match.start, match.end)] = binding


def check_size(text: str) -> None:
    """Raise ``InputError`` for a text longer than :data:`MAX_TEXT_CHARS`."""
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(
            f"text is {len(text):,} characters; the rules extractor reads at most "
            f"{MAX_TEXT_CHARS:,}: split the entry into smaller ones"
        )


class RulesExtractor:
    """The offline default extractor (``rules``)."""

    identity = "rules/10"

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The fact record of ``text`` under ``schema``."""
        check_size(text)
        norm = normalize(text)
        work = norm.text
        context = ExtractionContext(
            reference=reference if reference is not None else infer_reference(text),
            decimal_comma=registry.detect_decimal_comma(work),
        )
        bounds = Boundaries.of(work)
        atoms = self._atoms(work, schema, context, bounds)
        chosen = {spec.name: _Chosen([], {}) for spec in schema.fields}
        claimed: set[tuple[int, int]] = set()

        for spec in schema.fields:
            if spec.pattern is not None:
                contextual = bool(spec.safe_pattern and spec.safe_pattern.groups)
                binding = Binding(BindingKind.PATTERN, contextual=contextual)
                for match in _pattern_matches(work, spec, context):
                    chosen[spec.name].add(match, binding)
                    claimed.add((match.start, match.end))
        self._fill_by_cues(work, schema, atoms, bounds, chosen, claimed)
        for spec in schema.fields:
            if spec.pattern is not None or spec.cues or spec.type in _PHRASE_TYPES:
                continue
            pool = [m for m in atoms.get(spec.type, []) if (m.start, m.end) not in claimed]
            for match in pool if spec.many else pool[:1]:
                chosen[spec.name].add(match, TYPE_ONLY)
                claimed.add((match.start, match.end))

        role_cues = _RoleCuesOnce(work, bounds, atoms)
        fields = {
            spec.name: _facts(
                text,
                norm,
                chosen[spec.name],
                atoms.get(spec.type, []),
                _release_roles(role_cues, chosen[spec.name].matches)
                if spec.type is FactType.IDENTIFIER
                else None,
            )
            for spec in schema.fields
        }
        return FactRecord(
            schema=schema.ref,
            fields=fields,
            inventory=_inventory(text, norm, schema, atoms, fields, claimed, role_cues),
            reference=context.reference,
            extractor=self.identity,
            unbound=_unbound(text, norm, schema, atoms, claimed),
        )

    @staticmethod
    def _atoms(
        text: str, schema: FactSchema, context: ExtractionContext, bounds: Boundaries
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
        if FactType.DECISION in needed:
            decisions = list(find_decisions(text, bounds))
            if decisions:
                atoms[FactType.DECISION] = decisions
        return atoms

    @staticmethod
    def _fill_by_cues(
        text: str,
        schema: FactSchema,
        atoms: dict[FactType, list[Match]],
        bounds: Boundaries,
        chosen: dict[str, _Chosen],
        claimed: set[tuple[int, int]],
    ) -> None:
        occurrences: list[_Occurrence] = []
        for spec in schema.fields:
            if spec.pattern is not None:
                continue
            if spec.type in _PHRASE_TYPES:
                occurrences.extend(_phrase_occurrences(text, spec, bounds))
                continue
            if not spec.cues:
                continue
            index = CueIndex(text, spec.cues, bounds)
            for match in atoms.get(spec.type, []):
                hit = index.nearest(match.start, match.end)
                if hit is not None:
                    binding = Binding(BindingKind.CUE, hit.cue, hit.distance, hit.same_clause)
                    occurrences.append(_Occurrence(spec, match, binding, hit.aside))
        rivals = _rival_distances(occurrences)
        occurrences.sort(
            key=lambda o: (
                o.aside,
                o.binding.distance or 0,
                -rivals.get((o.field.name, o.match.start, o.match.end), _NO_RIVAL),
                o.match.start,
                o.field.name,
            )
        )
        for occurrence in occurrences:
            span = (occurrence.match.start, occurrence.match.end)
            taken = chosen[occurrence.field.name]
            if span in claimed or (taken.matches and not occurrence.field.many):
                continue
            taken.add(occurrence.match, occurrence.binding)
            claimed.add(span)
        for entry in chosen.values():
            entry.matches.sort(key=lambda m: m.start)


_NO_RIVAL = 1 << 30


def _rival_distances(occurrences: list[_Occurrence]) -> dict[tuple[str, int, int], int]:
    """For each (field, value span) a cue binds, the distance of the nearest cue of another
    field to that value (none: absent). Of two values equally near a field's cue, the one
    no other field wants as much goes to it first (``credit memo due by April 10, and he
    will pay by April 30``: ``by`` is one word before each date, and April 10 is the credit
    memo's)."""
    nearest: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for o in occurrences:
        span = (o.match.start, o.match.end)
        nearest.setdefault(span, []).append((o.binding.distance or 0, o.field.name))
    rivals: dict[tuple[str, int, int], int] = {}
    for (start, end), wants in nearest.items():
        for _, name in wants:
            others = [d for d, other in wants if other != name]
            if others:
                rivals[(name, start, end)] = min(others)
    return rivals


_PHRASE_TYPES = frozenset({FactType.ENUM, FactType.BOOLEAN, FactType.TEXT, FactType.DECISION})
"""Types whose values are found by the field's own phrases (options or cues), not by type."""


def infer_reference(text: str) -> date | None:
    """The first complete calendar date stated in ``text`` (its own anchor), if any."""
    check_size(text)
    work = normalize(text).text
    for match in registry.RECOGNIZERS[FactType.DATE].find(work, ExtractionContext()):
        value = match.value
        if isinstance(value, DateValue) and value.year is not None and value.month is not None:
            return date(value.year, value.month, value.day)
    return None


def _phrase_occurrences(text: str, spec: FieldSpec, bounds: Boundaries) -> list[_Occurrence]:
    """Enum options, boolean cues, text cues and decision verbs: the phrase is its own cue
    (distance 0)."""
    if spec.type is FactType.ENUM:
        matches = list(_enum_matches(text, spec, bounds))
    elif spec.type is FactType.BOOLEAN:
        matches = list(_boolean_matches(text, spec, bounds))
    elif spec.type is FactType.DECISION:
        matches = list(find_decisions(text, bounds, _field_lexicon(spec.name, spec.cues)))
    else:
        matches = list(_text_matches(text, spec))
    return [
        _Occurrence(spec, m, Binding(BindingKind.CUE, fold(text[m.start : m.end])[:60], 0, True))
        for m in matches
    ]


@lru_cache(maxsize=256)
def _field_lexicon(name: str, verbs: tuple[str, ...]) -> Lexicon:
    """A decision field's own verbs (its cues, base forms): one class named after the field."""
    return Lexicon({name: verbs})


def _pattern_matches(text: str, spec: FieldSpec, context: ExtractionContext) -> Iterable[Match]:
    pattern = spec.safe_pattern
    assert pattern is not None
    for start, end in pattern.spans(text):
        if start < 0 or end <= start:
            continue
        raw = text[start:end]
        value: Value | None
        if spec.type is FactType.ENUM:
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


def _enum_matches(text: str, spec: FieldSpec, bounds: Boundaries) -> Iterable[Match]:
    phrases = {fold(p): o.value for o in spec.options for p in (o.value, *o.synonyms) if p.strip()}
    if not phrases:
        return
    for start, end in cue_spans(text, tuple(phrases)):
        value = EnumValue(phrases[fold(text[start:end])], negated(text, start, bounds))
        yield Match(start, end, value)


def _boolean_matches(text: str, spec: FieldSpec, bounds: Boundaries) -> Iterable[Match]:
    if not spec.cues:
        return
    for start, end in cue_spans(text, spec.cues):
        value = BooleanValue(not negated(text, start, bounds))
        yield Match(start, end, value)


def _text_matches(text: str, spec: FieldSpec) -> Iterable[Match]:
    if not spec.cues:
        return
    for _, cue_end in cue_spans(text, spec.cues):
        start = cue_end
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


def _strongest(bindings: Iterable[Binding]) -> Binding:
    return min(
        bindings,
        key=lambda b: (not b.strong, b.kind is BindingKind.TYPE, b.distance or 0),
        default=TYPE_ONLY,
    )


def _facts(
    original: str,
    norm: Normalized,
    chosen: _Chosen,
    same_type: list[Match],
    roles: list[str] | None = None,
) -> tuple[Fact, ...]:
    """Group matches by value; each fact's evidence is every span stating that value, and
    its occurrences one more than the spans that state it anew."""
    span_of = norm.span
    roles = roles or []
    spans_by_key: dict[object, set[tuple[int, int]]] = {}
    anew: dict[object, set[tuple[int, int]]] = {}
    for match in (*same_type, *chosen.matches):
        span = span_of(match.start, match.end)
        spans_by_key.setdefault(match.value.key(), set()).add(span)
        if match.anew:
            anew.setdefault(match.value.key(), set()).add(span)
    bindings: dict[object, list[Binding]] = {}
    role_sets: dict[object, set[str]] = {}
    first: dict[object, Match] = {}
    for i, match in enumerate(chosen.matches):
        key = match.value.key()
        first.setdefault(key, match)
        bindings.setdefault(key, []).append(
            chosen.bindings.get((match.start, match.end), TYPE_ONLY)
        )
        if i < len(roles) and roles[i]:
            role_sets.setdefault(key, set()).add(roles[i])
    facts = []
    for key, match in first.items():
        start, end = span_of(match.start, match.end)
        facts.append(
            Fact(
                match.value,
                tuple(sorted(spans_by_key[key])),
                original[start:end],
                _strongest(bindings[key]),
                tuple(sorted(role_sets.get(key, ()))),
                1 + len(anew.get(key, ())),
            )
        )
    return tuple(facts)


class _RoleCuesOnce:
    """The role cues of one text, its clauses read outside every atom (``v2.4.0`` ends no
    sentence), found on first use: the fields' versions and the inventory share them."""

    def __init__(self, text: str, bounds: Boundaries, atoms: dict[FactType, list[Match]]) -> None:
        self._text, self._bounds, self._atoms = text, bounds, atoms

    @cached_property
    def cues(self) -> RoleCues:
        spans = sorted((m.start, m.end) for found in self._atoms.values() for m in found)
        return RoleCues(self._text, self._bounds.outside(spans))


def _release_roles(role_cues: _RoleCuesOnce, matches: list[Match]) -> list[str] | None:
    """The release roles of the versions among identifier ``matches`` (in text order), one
    entry per match (``""`` for other identifiers); None when no match is a version."""
    versions = [m for m in matches if is_version(m.value)]
    if not versions:
        return None
    roles = role_cues.cues.release_roles(versions)
    by_span = dict(zip(((m.start, m.end) for m in versions), roles, strict=True))
    return [by_span.get((m.start, m.end), "") for m in matches]


def _start_of(match: Match) -> int:
    return match.start


def _inventory(
    original: str,
    norm: Normalized,
    schema: FactSchema,
    atoms: dict[FactType, list[Match]],
    fields: dict[str, tuple[Fact, ...]],
    claimed: set[tuple[int, int]],
    role_cues: _RoleCuesOnce,
) -> dict[FactType, tuple[Fact, ...]]:
    field_keys = {
        (spec.type, fact.value.key()) for spec in schema.fields for fact in fields[spec.name]
    }
    text = norm.text
    roles_by_span: dict[tuple[int, int], str] = {}
    if set(schema.inventory) & ROLE_TYPES and role_cues.cues.found:
        ordered = sorted(
            (m for t in ROLE_TYPES if t in schema.inventory for m in atoms.get(t, [])),
            key=lambda m: m.start,
        )
        roles_by_span = {
            (m.start, m.end): role
            for m, role in zip(
                ordered,
                role_cues.cues.roles(
                    ordered, sorted(atoms.get(FactType.IDENTIFIER, ()), key=_start_of)
                ),
                strict=True,
            )
        }
    inventory: dict[FactType, tuple[Fact, ...]] = {}
    for fact_type in schema.inventory:
        free = [
            m
            for m in atoms.get(fact_type, [])
            if (m.start, m.end) not in claimed and (fact_type, m.value.key()) not in field_keys
        ]
        if free:
            roles: list[str] | None
            if fact_type is FactType.PERSON:
                roles = person_roles(text, free)
            elif fact_type is FactType.IDENTIFIER:
                roles = _release_roles(role_cues, free)
            else:
                roles = [roles_by_span.get((m.start, m.end), "") for m in free]
            inventory[fact_type] = _facts(original, norm, _Chosen(free, {}), free, roles)
    return inventory


def _unbound(
    original: str,
    norm: Normalized,
    schema: FactSchema,
    atoms: dict[FactType, list[Match]],
    claimed: set[tuple[int, int]],
) -> dict[FactType, tuple[Fact, ...]]:
    """Atoms of a field's type that no field claimed and the inventory does not track."""
    out: dict[FactType, tuple[Fact, ...]] = {}
    for fact_type in sorted({spec.type for spec in schema.fields} - set(schema.inventory)):
        if fact_type in _PHRASE_TYPES:
            continue
        free = [m for m in atoms.get(fact_type, []) if (m.start, m.end) not in claimed]
        if free:
            out[fact_type] = _facts(original, norm, _Chosen(free, {}), free)
    return out


DEFAULT_EXTRACTOR = RulesExtractor()
"""The default extractor, built once: ``rules``, deterministic and offline."""
