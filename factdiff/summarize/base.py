"""The summarizer interface: a request (text, schema, facts, budget) in, a summary out.

A summarizer only sees the source text and the source's fact record (values with evidence
spans and, through the schema, their criticality); it never runs extraction itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from factdiff.errors import UsageError
from factdiff.extraction.record import Fact, FactRecord
from factdiff.schema.model import Criticality, FactSchema

__all__ = [
    "EmptySourceError",
    "Summarizer",
    "Summary",
    "SummaryRequest",
    "facts_by_criticality",
    "validate_request",
]


class EmptySourceError(UsageError):
    """The source text is empty or whitespace only: there is nothing to summarize."""


@dataclass(frozen=True)
class SummaryRequest:
    """What a summarizer is asked to do."""

    text: str
    schema: FactSchema
    source_record: FactRecord
    """The fact record of ``text`` under ``schema`` (spans index into ``text``)."""
    budget_words: int
    must_keep: tuple[Fact, ...] = ()
    """Facts a previous diff reported missing or changed: the summary must state them."""
    strictness: int = 0
    """The retry rung: higher keeps more facts and more context around them."""


@dataclass(frozen=True)
class Summary:
    """A summary and how it was made."""

    text: str
    summarizer: str
    """The summarizer's identity (``extractive``, ``naive``, a model name...)."""
    method_version: str
    """The algorithm or prompt version (``extractive/1``), stored in the compression meta."""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: str | None = None
    over_budget: bool = False
    """True when keeping every required fact took more words than the budget."""


class Summarizer(Protocol):
    """Turns a source text into a narrative summary."""

    @property
    def identity(self) -> str:
        """A stable name recorded with every attempt."""
        ...

    def summarize(self, request: SummaryRequest) -> Summary:
        """Summarize ``request.text`` within ``request.budget_words`` words."""
        ...


def validate_request(request: SummaryRequest) -> None:
    """Raise ``EmptySourceError`` for a blank source, ``UsageError`` for a budget below 1."""
    if not request.text.strip():
        raise EmptySourceError("the source text is empty: store it as is, do not summarize it")
    if request.budget_words < 1:
        raise UsageError(f"budget_words must be at least 1, got {request.budget_words}")


def facts_by_criticality(
    record: FactRecord, schema: FactSchema
) -> list[tuple[Fact, Criticality, str]]:
    """Every fact of ``record`` with its criticality and its field name (or ``inventory.<type>``).

    Sorted by criticality (critical first), then by first evidence offset, then name. Facts of
    fields the schema lacks and of inventory types it does not track are left out.
    """
    known = {spec.name: spec.criticality for spec in schema.fields}
    out: list[tuple[Fact, Criticality, str]] = []
    for name, facts in record.fields.items():
        criticality = known.get(name)
        if criticality is not None:
            out.extend((fact, criticality, name) for fact in facts)
    for fact_type, facts in record.inventory.items():
        tracked = schema.inventory_criticality(fact_type)
        if tracked is not None:
            out.extend((fact, tracked, f"inventory.{fact_type.value}") for fact in facts)
    out.sort(key=lambda item: (item[1].rank, _first_offset(item[0]), item[2]))
    return out


def _first_offset(fact: Fact) -> int:
    return min((start for start, _ in fact.spans), default=-1)
