"""The jury extractor: the rules extractor and an LLM extractor, merged.

The union of both records: per field, every value either found (a value both found once,
with the evidence spans of both); the inventory is the rules extractor's, less any atom that
a field now holds. A **disagreement** is a field where both found something but not the same
values (for a single-valued field, two different values): it is kept in the record (so the
diff checks both) and reported by ``extract_with_report``.

Recommended when a model is configured: rules find what patterns find reliably (ids, money,
dates), the model finds what they cannot (who disputed, what was agreed).

``FlooredExtractor`` (what a plain ``provider:model`` extractor spec builds) holds a model to
a **rules floor**: its record is trusted only when it states every critical fact the rules
extractor finds in the same text; otherwise (a model told by the entry itself that there are
"no facts", or one that skipped a value) the union of both records is used instead, so a
source can never look fact-free to the diff just because its model said so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date

from factdiff.extraction.base import Extractor
from factdiff.extraction.llm import LLMExtractor
from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR, infer_reference
from factdiff.providers import runtime
from factdiff.schema.model import Criticality, FactSchema
from factdiff.values.base import JSON, FactType

__all__ = [
    "Disagreement",
    "FlooredExtractor",
    "JuryExtractor",
    "JuryResult",
    "critical_keys",
    "merge_records",
]

log = logging.getLogger("factdiff.extract")  # logger name kept: log lines unchanged


@dataclass(frozen=True)
class Disagreement:
    """A field both extractors filled, differently."""

    field: str
    rules: tuple[Fact, ...]
    llm: tuple[Fact, ...]

    def to_json(self) -> dict[str, JSON]:
        """``{"field", "rules": [canonical...], "llm": [canonical...]}``."""
        return {
            "field": self.field,
            "rules": [f.value.canonical() for f in self.rules],
            "llm": [f.value.canonical() for f in self.llm],
        }


@dataclass(frozen=True)
class JuryResult:
    """The merged record and where the two extractors disagreed."""

    record: FactRecord
    disagreements: tuple[Disagreement, ...]


class JuryExtractor:
    """``jury:provider:model``: rules + LLM, union with disagreements recorded."""

    def __init__(self, llm: LLMExtractor, rules: Extractor | None = None) -> None:
        self.llm = llm
        self.rules = rules or DEFAULT_EXTRACTOR
        self.identity = f"jury({self.rules.identity}+{llm.identity})"

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The merged record (blocks on the model call)."""
        return self.extract_with_report(text, schema, reference).record

    def extract_with_report(
        self, text: str, schema: FactSchema, reference: date | None = None
    ) -> JuryResult:
        """The merged record and the disagreements."""
        return runtime.run(self._aextract_with_report(text, schema, reference))

    async def aextract(
        self, text: str, schema: FactSchema, reference: date | None = None
    ) -> FactRecord:
        """The merged record, from any event loop."""
        result = await runtime.run_async(self._aextract_with_report(text, schema, reference))
        return result.record

    async def _aextract_with_report(
        self, text: str, schema: FactSchema, reference: date | None
    ) -> JuryResult:
        reference = reference if reference is not None else infer_reference(text)
        rules = await asyncio.to_thread(self.rules.extract, text, schema, reference)
        llm = await self.llm.aextract(text, schema, reference)
        return merge_records(rules, llm, schema, identity=self.identity)


class FlooredExtractor:
    """An LLM extractor held to the rules floor (see the module docstring)."""

    def __init__(self, llm: LLMExtractor, rules: Extractor | None = None) -> None:
        self.llm = llm
        self.rules = rules or DEFAULT_EXTRACTOR
        self.identity = f"{llm.identity}+floor({self.rules.identity})"

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The model's record, or the union with the rules' when it falls below the floor."""
        return runtime.run(self._aextract(text, schema, reference))

    async def aextract(
        self, text: str, schema: FactSchema, reference: date | None = None
    ) -> FactRecord:
        """``extract`` from any event loop."""
        return await runtime.run_async(self._aextract(text, schema, reference))

    async def _aextract(self, text: str, schema: FactSchema, reference: date | None) -> FactRecord:
        reference = reference if reference is not None else infer_reference(text)
        llm = await self.llm.aextract(text, schema, reference)
        rules = await asyncio.to_thread(self.rules.extract, text, schema, reference)
        return held_to_floor(llm, rules, schema, identity=self.identity)


def critical_keys(record: FactRecord, schema: FactSchema) -> set[tuple[FactType, object]]:
    """(type, value key) of every critical fact of ``record``: critical fields' values and
    inventory atoms of types the schema tracks as critical."""
    keys = {
        (fact.value.type, fact.value.key())
        for spec in schema.fields
        if spec.criticality is Criticality.CRITICAL
        for fact in record.fields.get(spec.name, ())
    }
    for fact_type, facts in record.inventory.items():
        if schema.inventory_criticality(fact_type) is Criticality.CRITICAL:
            keys.update((fact_type, f.value.key()) for f in facts)
    return keys


def held_to_floor(
    llm: FactRecord, rules: FactRecord, schema: FactSchema, *, identity: str
) -> FactRecord:
    """``llm`` when it states every critical fact of ``rules`` (in any field), else the union."""
    stated = {(f.value.type, f.value.key()) for facts in llm.fields.values() for f in facts}
    stated.update((t, f.value.key()) for t, facts in llm.inventory.items() for f in facts)
    below = critical_keys(rules, schema) - stated
    if not below:
        return llm
    log.warning(
        "%s left out %d critical fact(s) the rules extractor found: using the union",
        llm.extractor,
        len(below),
    )
    return merge_records(rules, llm, schema, identity=f"{identity}:union").record


def merge_records(
    rules: FactRecord, llm: FactRecord, schema: FactSchema, *, identity: str = "jury"
) -> JuryResult:
    """Union of two records of one schema, and their disagreements."""
    fields: dict[str, tuple[Fact, ...]] = {}
    disagreements: list[Disagreement] = []
    for spec in schema.fields:
        left = rules.fields.get(spec.name, ())
        right = llm.fields.get(spec.name, ())
        fields[spec.name] = _union(left, right)
        if left and right and {f.value.key() for f in left} != {f.value.key() for f in right}:
            disagreements.append(Disagreement(spec.name, left, right))
    held = {(spec.type, f.value.key()) for spec in schema.fields for f in fields[spec.name]}
    inventory: dict[FactType, tuple[Fact, ...]] = {}
    for fact_type, facts in rules.inventory.items():
        free = tuple(f for f in facts if (fact_type, f.value.key()) not in held)
        if free:
            inventory[fact_type] = free
    record = FactRecord(
        schema=rules.schema,
        fields=fields,
        inventory=inventory,
        reference=rules.reference or llm.reference,
        extractor=identity,
    )
    return JuryResult(record, tuple(disagreements))


def _union(left: tuple[Fact, ...], right: tuple[Fact, ...]) -> tuple[Fact, ...]:
    merged: dict[object, Fact] = {}
    for fact in (*left, *right):
        key = fact.value.key()
        found = merged.get(key)
        if found is None:
            merged[key] = fact
        else:
            spans = tuple(sorted(set(found.spans) | set(fact.spans)))
            merged[key] = replace(found, spans=spans)  # keeps the rules fact's binding
    return tuple(merged.values())


def disagreements_json(result: JuryResult) -> Mapping[str, JSON]:
    """``{"disagreements": [...]}`` for events and reports."""
    return {"disagreements": [d.to_json() for d in result.disagreements]}
