"""The fact diff: compare the source's record with the summary's, field by field.

For each field (element by element when ``many``) and each tracked inventory type:

* **missing**: the source states a value the summary states nowhere;
* **changed**: the summary gives the field a value the source does not state, where the
  source had another (``$2,400`` became ``$2,500``);
* **added**: the summary states a value the source does not (confabulation).

Values compare after normalisation, under the field's tolerance, so format-only differences
never count. How each fact was bound to its field decides how far "stated elsewhere" goes
(``factdiff.extraction.record.Binding``):

* when both records bind a field **strongly** (a contextual pattern, or a cue near the value)
  and the values differ, it is a change, even if the summary's value is stated elsewhere in
  the source; when the two values of two fields were exchanged, each change names the other
  field in its detail;
* otherwise a summary value that the source states elsewhere is not a change (a cue picked
  another occurrence), and a source value the summary states anywhere is kept.

Inventory atoms are compared by **role** as well (``factdiff.extraction.roles``): a summary
atom whose role (``departure``, ``total``...) the source gives to another value, while the
source states the summary's value in another role, is a change (a swapped departure and
arrival time). An atom written without a role cue is never compared by role. Release
versions are compared so in identifier fields too (a deployed and a rolled-back version
swapped).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import Criticality, FactSchema, SchemaRef
from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value
from factdiff.values.decision import DecisionValue


class Verdict(enum.StrEnum):
    """What happened to one fact between source and summary."""

    KEPT = "kept"
    MISSING = "missing"
    CHANGED = "changed"
    ADDED = "added"
    ABSENT = "absent"
    """In neither text (a field the source never stated)."""


@dataclass(frozen=True)
class Finding:
    """One lost, changed or invented fact."""

    verdict: Verdict
    field: str
    """A schema field name, or ``inventory.<type>`` for a schema-free atom."""
    criticality: Criticality
    fact_type: FactType
    source: Fact | None = None
    summary: Fact | None = None
    detail: str = ""

    def to_json(self) -> dict[str, JSON]:
        """The ``--json`` form: field, criticality, type, source_value and/or summary_value."""
        data: dict[str, JSON] = {
            "field": self.field,
            "criticality": self.criticality.value,
            "type": self.fact_type.value,
        }
        if self.source is not None:
            data["source_value"] = self.source.value.canonical()
            data["source_text"] = self.source.text
        if self.summary is not None:
            data["summary_value"] = self.summary.value.canonical()
            data["summary_text"] = self.summary.text
        if self.detail:
            data["detail"] = self.detail
        return data


@dataclass(frozen=True)
class FieldRow:
    """One line of the human-readable table: a field or an inventory atom."""

    field: str
    criticality: Criticality
    verdict: Verdict
    source_values: tuple[str, ...]
    summary_values: tuple[str, ...]


@dataclass(frozen=True)
class FactDiff:
    """The comparison of a source record with a summary record under one schema."""

    schema: SchemaRef
    findings: tuple[Finding, ...]
    rows: tuple[FieldRow, ...] = field(default=())

    def of(self, verdict: Verdict) -> tuple[Finding, ...]:
        """Findings with one verdict."""
        return tuple(f for f in self.findings if f.verdict is verdict)

    @property
    def missing(self) -> tuple[Finding, ...]:
        """Facts the summary lost."""
        return self.of(Verdict.MISSING)

    @property
    def changed(self) -> tuple[Finding, ...]:
        """Facts the summary altered."""
        return self.of(Verdict.CHANGED)

    @property
    def added(self) -> tuple[Finding, ...]:
        """Facts the summary invented."""
        return self.of(Verdict.ADDED)

    def to_json(self) -> dict[str, JSON]:
        """``missing``, ``changed``, ``added`` lists and the schema reference."""
        return {
            "schema": self.schema.to_json(),
            "missing": [f.to_json() for f in self.missing],
            "changed": [f.to_json() for f in self.changed],
            "added": [f.to_json() for f in self.added],
            "fields": [
                {
                    "field": r.field,
                    "criticality": r.criticality.value,
                    "verdict": r.verdict.value,
                    "source_values": list(r.source_values),
                    "summary_values": list(r.summary_values),
                }
                for r in self.rows
            ],
        }


class _Side:
    """Every fact of one record by type, for "is this value stated anywhere?" queries."""

    def __init__(self, record: FactRecord, schema: FactSchema) -> None:
        types = {spec.name: spec.type for spec in schema.fields}
        self.by_type: dict[FactType, list[Fact]] = {}
        for name, facts in record.fields.items():
            if name in types:
                self.by_type.setdefault(types[name], []).extend(facts)
        for fact_type, facts in record.inventory.items():
            self.by_type.setdefault(fact_type, []).extend(facts)
        for fact_type, facts in record.unbound.items():
            self.by_type.setdefault(fact_type, []).extend(facts)

    @functools.cached_property
    def decisions(self) -> tuple[tuple[DecisionValue, int], ...]:
        """Every decision this side states, with how many times it is stated."""
        return tuple(
            (f.value, len(f.spans))
            for f in self.by_type.get(FactType.DECISION, ())
            if isinstance(f.value, DecisionValue)
        )

    def states(self, value: Value, tolerance: Tolerance = EXACT) -> bool:
        """Whether this side states ``value`` anywhere (a datetime also states its parts)."""
        if any(f.value.same_as(value, tolerance) for f in self.by_type.get(value.type, ())):
            return True
        for composite in _COMPOSITES.get(value.type, ()):
            for fact in self.by_type.get(composite, ()):
                if any(part.same_as(value, tolerance) for part in fact.value.parts()):
                    return True
        parts = value.parts()
        if parts:
            return all(self.states(part, tolerance) for part in parts)
        twin = _DIGIT_TWINS.get(value.type)
        if twin is not None and (digits := value.digit_key()) is not None:
            for fact in self.by_type.get(twin, ()):
                other = fact.value.digit_key()
                if other is not None and _same_number(digits, other):
                    return True
        return any(value.unstated_parts(f.value) == [] for f in self.by_type.get(value.type, ()))

    def restates(self, fact: Fact, source: _Side, tolerance: Tolerance = EXACT) -> bool:
        """Whether this summary side states the source's ``fact``: ``states``, except for a
        decision, which it must state at least as many times as the source has occurrences
        of it (``Fact.occurrences``; times, not occurrences, in the summary: a faithful one
        may drop the request that set two bookings apart). Statements in the other binding
        (``your booking is done`` for ``your ride is booked``, or the other way round) count
        beyond the source's own decisions of that binding, which they restate first. A
        summary keeping the source's one unbound booking, or its one booked appointment, has
        not kept the other booking; nor has one keeping one of two bookings stated alike."""
        value = fact.value
        if not isinstance(value, DecisionValue):
            return self.states(value, tolerance)
        bound = bool(value.obj)
        kept = spare = 0
        for mine, times in self.decisions:
            if mine.same_as(value):
                if bool(mine.obj) is bound:
                    kept += times
                else:
                    spare += times
        owed = sum(
            bool(other.obj) is not bound and other.same_as(value) for other, _ in source.decisions
        )
        return kept + max(0, spare - owed) >= fact.occurrences


_COMPOSITES = {FactType.DATE: (FactType.DATETIME,), FactType.TIME: (FactType.DATETIME,)}
"""Types whose values may be stated as a part of a value of another type."""
_DIGIT_TWINS = {FactType.IDENTIFIER: FactType.PHONE, FactType.PHONE: FactType.IDENTIFIER}
"""A long digit string is one fact whether a recognizer read it as an ID or as a phone."""


def _same_number(a: str, b: str) -> bool:
    """Equal digits, allowing a country code (up to 3 digits) and a national trunk 0."""
    short, long = sorted((a.lstrip("0"), b.lstrip("0")), key=len)
    return bool(short) and long.endswith(short) and len(long) - len(short) <= 3


def _strong(facts: Iterable[Fact]) -> bool:
    return any(f.binding.strong for f in facts)


def diff(source: FactRecord, summary: FactRecord, schema: FactSchema) -> FactDiff:
    """Compare two records of the same schema: missing, changed and added facts."""
    source_side, summary_side = _Side(source, schema), _Side(summary, schema)
    findings: list[Finding] = []
    rows: list[FieldRow] = []
    explained: dict[FactType, list[Value]] = {}
    compared: list[tuple[str, Criticality, tuple[Fact, ...], tuple[Fact, ...]]] = []
    for spec in schema.fields:
        source_facts = source.fields.get(spec.name, ())
        summary_facts = summary.fields.get(spec.name, ())
        field_findings = _diff_values(
            name=spec.name,
            criticality=spec.criticality,
            fact_type=spec.type,
            tolerance=spec.tolerance,
            source_facts=source_facts,
            summary_facts=summary_facts,
            source_side=source_side,
            summary_side=summary_side,
        )
        field_findings += _role_changes(
            spec.name, spec.criticality, spec.type, source_facts, summary_facts, source_side
        )
        for finding in field_findings:
            for fact in (finding.source, finding.summary):
                if fact is not None:
                    explained.setdefault(spec.type, []).append(fact.value)
        findings.extend(field_findings)
        compared.append((spec.name, spec.criticality, source_facts, summary_facts))
    findings = _name_exchanges(findings, source, schema)
    findings += _rebound(findings, source, summary, schema)
    for name, criticality, source_facts, summary_facts in compared:
        own = [f for f in findings if f.field == name]  # with the rebound values' changes
        rows.append(_row(name, criticality, source_facts, summary_facts, own))
    for fact_type, criticality in sorted(schema.inventory.items()):

        def unexplained(facts: Iterable[Fact], fact_type: FactType = fact_type) -> tuple[Fact, ...]:
            done = explained.get(fact_type, [])
            return tuple(f for f in facts if not any(v.same_as(f.value) for v in done))

        name = f"inventory.{fact_type.value}"
        source_facts = unexplained(source.inventory.get(fact_type, ()))
        summary_facts = unexplained(summary.inventory.get(fact_type, ()))
        inventory_findings = _diff_values(
            name=name,
            criticality=criticality,
            fact_type=fact_type,
            tolerance=EXACT,
            source_facts=source_facts,
            summary_facts=summary_facts,
            source_side=source_side,
            summary_side=summary_side,
            is_field=False,
        )
        inventory_findings += _role_changes(
            name,
            criticality,
            fact_type,
            _with_parts(source, fact_type, source_facts),
            _with_parts(summary, fact_type, summary_facts),
            source_side,
        )
        findings.extend(inventory_findings)
        if source_facts or summary_facts:
            rows.append(_row(name, criticality, source_facts, summary_facts, inventory_findings))
    return FactDiff(schema.ref, tuple(findings), tuple(rows))


def _diff_values(
    *,
    name: str,
    criticality: Criticality,
    fact_type: FactType,
    tolerance: Tolerance,
    source_facts: tuple[Fact, ...],
    summary_facts: tuple[Fact, ...],
    source_side: _Side,
    summary_side: _Side,
    is_field: bool = True,
) -> list[Finding]:
    """Findings of one field (element by element) or one inventory type."""
    findings: list[Finding] = []
    open_source = list(source_facts)
    open_summary = list(summary_facts)

    def finding(verdict: Verdict, src: Fact | None, smr: Fact | None, detail: str = "") -> None:
        findings.append(Finding(verdict, name, criticality, fact_type, src, smr, detail))

    if is_field:
        for src in list(open_source):
            match = next((u for u in open_summary if u.value.same_as(src.value, tolerance)), None)
            if match is not None:
                open_source.remove(src)
                open_summary.remove(match)
    for src in list(open_source):
        for smr in open_summary:
            parts = src.value.unstated_parts(smr.value)
            if parts is None:
                continue
            open_source.remove(src)
            open_summary.remove(smr)
            if parts:
                verdict = Verdict.MISSING if smr.value.is_mention else Verdict.CHANGED
                finding(verdict, src, smr, "not stated: " + ", ".join(parts))
            break

    flipped = [] if is_field else _flips(open_source, open_summary, source_side, summary_side)

    def tolerated(smr: Fact) -> bool:
        """A summary value stated elsewhere in the source, unless both bind the field strongly
        or it flips a source decision on its object."""
        if smr.binding.strong and _strong(open_source):
            return False
        if any(smr is flip for _, flip in flipped):
            return False
        return source_side.states(smr.value, tolerance)

    for src, smr in flipped:
        open_source.remove(src)
        open_summary.remove(smr)
        finding(Verdict.CHANGED, src, smr)
    open_summary = [u for u in open_summary if not tolerated(u)]
    fewer: list[Fact] = []  # decisions the summary states, fewer times than they occur
    if not is_field:
        unstated = []
        for src in open_source:
            if summary_side.restates(src, source_side, tolerance):
                continue
            if src.occurrences > 1 and summary_side.states(src.value, tolerance):
                fewer.append(src)  # a gap, never paired with another value as a change
            else:
                unstated.append(src)
        open_source = unstated
    while open_source and open_summary:
        finding(Verdict.CHANGED, open_source.pop(0), open_summary.pop(0))
    for src in open_source:
        if not summary_side.restates(src, source_side, tolerance):
            finding(Verdict.MISSING, src, None)
    for src in fewer:
        detail = f"stated {src.occurrences} times apart in the source, fewer in the summary"
        finding(Verdict.MISSING, src, None, detail)
    for smr in open_summary:
        finding(Verdict.ADDED, None, smr)
    return findings


def _flips(
    source_facts: list[Fact], summary_facts: list[Fact], source_side: _Side, summary_side: _Side
) -> list[tuple[Fact, Fact]]:
    """Pairs of a source decision the summary does not restate and a summary decision on the
    same object of another class or polarity (``refused the upgrade offer`` ->
    ``accepted the upgrade offer``): a change, even where another decision of the summary's
    class, unbound, stands in the source (``agreed to extend the contract``)."""
    pairs: list[tuple[Fact, Fact]] = []
    taken: set[int] = set()
    for src in source_facts:
        value = src.value
        if not isinstance(value, DecisionValue) or not value.obj:
            continue
        if summary_side.restates(src, source_side):
            continue
        for smr in summary_facts:
            other = smr.value
            if (
                id(smr) not in taken
                and isinstance(other, DecisionValue)
                and other.obj
                and (other.verb, other.negated) != (value.verb, value.negated)
                and other.same_object(value)
                and not any(o.obj and o.same_as(other) for o, _ in source_side.decisions)
            ):
                pairs.append((src, smr))
                taken.add(id(smr))
                break
    return pairs


def _name_exchanges(
    findings: list[Finding], source: FactRecord, schema: FactSchema
) -> list[Finding]:
    """Give each changed field whose new value is another field's source value a detail
    naming that field (``exchanged with X`` when X got this field's value in return)."""
    tolerance = {spec.name: spec.tolerance for spec in schema.fields}
    changed = {f.field: f for f in findings if f.verdict is Verdict.CHANGED and f.summary}
    out: list[Finding] = []
    for f in findings:
        if (
            f.verdict is not Verdict.CHANGED
            or f.summary is None
            or f.detail
            or f.fact_type in _POLARITY_TYPES
        ):
            out.append(f)
            continue
        new_value = f.summary.value
        owner = next(
            (
                other.name
                for other in schema.fields
                if other.name != f.field
                and other.type is f.fact_type
                and any(
                    s.value.same_as(new_value, tolerance[f.field])
                    for s in source.fields.get(other.name, ())
                )
            ),
            None,
        )
        if owner is None:
            out.append(f)
            continue
        back = changed.get(owner)
        swapped = (
            back is not None
            and back.summary is not None
            and f.source is not None
            and back.summary.value.same_as(f.source.value, tolerance[owner])
        )
        detail = f"exchanged with {owner}" if swapped else f"the source's {owner} value"
        out.append(replace(f, detail=detail))
    return out


def _rebound(
    findings: list[Finding], source: FactRecord, summary: FactRecord, schema: FactSchema
) -> list[Finding]:
    """Source field values that the summary restates only bound to another field.

    A value restated without its cue is kept (``Irene Costa returned it`` keeps the
    customer); a value the summary binds by its cue to another field of the same type, where
    the source does not put it, is a change (``agent Irene Costa`` for the source's
    customer)."""
    reported = {(f.field, id(f.source)) for f in findings}
    out: list[Finding] = []
    for spec in schema.fields:
        if spec.type in _POLARITY_TYPES:
            continue
        mine = summary.fields.get(spec.name, ())
        for src in source.fields.get(spec.name, ()):
            if (spec.name, id(src)) in reported or any(
                f.value.same_as(src.value, spec.tolerance) for f in mine
            ):
                continue
            for other in schema.fields:
                if other.name == spec.name or other.type is not spec.type:
                    continue
                smr = next(
                    (
                        f
                        for f in summary.fields.get(other.name, ())
                        if f.binding.strong and f.value.same_as(src.value, spec.tolerance)
                    ),
                    None,
                )
                if smr is None or any(
                    f.value.same_as(src.value, other.tolerance)
                    for f in source.fields.get(other.name, ())
                ):
                    continue
                detail = f"the summary binds it to {other.name}"
                out.append(
                    Finding(
                        Verdict.CHANGED, spec.name, spec.criticality, spec.type, src, smr, detail
                    )
                )
                break
    return out


_POLARITY_TYPES = frozenset({FactType.BOOLEAN, FactType.ENUM})
"""Values shared by unrelated fields (``true``): equal values name no other field."""


def _with_parts(
    record: FactRecord, fact_type: FactType, facts: tuple[Fact, ...]
) -> tuple[Fact, ...]:
    """``facts`` plus the parts of type ``fact_type`` of the record's composite inventory
    atoms (a datetime's time), carrying the composite's roles."""
    extra = [
        Fact(part, fact.spans, fact.text, fact.binding, fact.roles)
        for composites in (record.inventory.get(c, ()) for c in _PART_OF.get(fact_type, ()))
        for fact in composites
        if fact.roles
        for part in fact.value.parts()
        if part.type is fact_type
    ]
    return (*facts, *extra) if extra else facts


_PART_OF = {FactType.DATE: (FactType.DATETIME,), FactType.TIME: (FactType.DATETIME,)}


def _role_changes(
    name: str,
    criticality: Criticality,
    fact_type: FactType,
    source_facts: tuple[Fact, ...],
    summary_facts: tuple[Fact, ...],
    source_side: _Side,
) -> list[Finding]:
    """Summary atoms whose role the source gives to another value (see the module docstring)."""
    by_role: dict[str, list[Fact]] = {}
    for fact in source_facts:
        for role in fact.roles:
            by_role.setdefault(role, []).append(fact)
    out: list[Finding] = []
    for smr in summary_facts:
        for role in smr.roles:
            holders = by_role.get(role)
            if not holders or any(h.value.same_as(smr.value) for h in holders):
                continue
            if not source_side.states(smr.value):
                continue  # a value the source never states is reported as added or changed
            other = next((f for f in source_facts if f.value.same_as(smr.value) and f.roles), None)
            elsewhere = f" (the source's {', '.join(other.roles)})" if other else ""
            detail = f"{role.replace('+', ' ')} is {holders[0].value.display()} in the source"
            out.append(
                Finding(
                    Verdict.CHANGED,
                    name,
                    criticality,
                    fact_type,
                    holders[0],
                    smr,
                    detail + elsewhere,
                )
            )
    return out


def _row(
    name: str,
    criticality: Criticality,
    source_facts: tuple[Fact, ...],
    summary_facts: tuple[Fact, ...],
    findings: list[Finding],
) -> FieldRow:
    order = (Verdict.CHANGED, Verdict.ADDED, Verdict.MISSING)
    verdicts = {f.verdict for f in findings}
    worst = next((v for v in order if v in verdicts), None)
    if worst is None:
        worst = Verdict.KEPT if source_facts or summary_facts else Verdict.ABSENT
    return FieldRow(
        field=name,
        criticality=criticality,
        verdict=worst,
        source_values=tuple(f.value.display() for f in source_facts),
        summary_values=tuple(f.value.display() for f in summary_facts),
    )


def criticality_of(schema: FactSchema) -> Mapping[str, Criticality]:
    """Criticality by finding field name (schema fields and ``inventory.<type>``)."""
    result = {spec.name: spec.criticality for spec in schema.fields}
    result.update({f"inventory.{t.value}": c for t, c in schema.inventory.items()})
    return result
