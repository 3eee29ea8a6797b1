"""``check``: the diff half of the pipeline on any source/summary pair."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR, infer_reference
from factdiff.schema.model import FactSchema
from factdiff.values.base import JSON
from factdiff.verify.diff import FactDiff, diff
from factdiff.verify.policy import DEFAULT_POLICY, Outcome, Policy

__all__ = ["DEFAULT_EXTRACTOR", "CheckResult", "check", "extract", "verify"]


@dataclass(frozen=True)
class CheckResult:
    """Both records, their diff and the outcome."""

    outcome: Outcome
    diff: FactDiff
    source_facts: FactRecord
    summary_facts: FactRecord
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        """The ``factdiff check --json`` object."""
        data = self.diff.to_json()
        return {"outcome": self.outcome.value, **data, "notes": list(self.notes)}


def verify(
    source_facts: FactRecord,
    summary_facts: FactRecord,
    schema: FactSchema,
    policy: Policy = DEFAULT_POLICY,
) -> CheckResult:
    """Diff two records of ``schema`` and decide: the pure half of ``check``, no extraction."""
    result = diff(source_facts, summary_facts, schema)
    outcome = policy.decide(result)
    notes = tuple(f"{f.field} missing" for f in policy.notes(result))
    return CheckResult(outcome, result, source_facts, summary_facts, notes)


def check(
    source: str,
    summary: str,
    schema: FactSchema,
    *,
    reference: date | None = None,
    extractor: Extractor = DEFAULT_EXTRACTOR,
    policy: Policy = DEFAULT_POLICY,
) -> CheckResult:
    """Extract both texts with one extractor, then ``verify`` the two records.

    Both texts resolve partial and relative dates against the same reference: the entry's
    own date when given, else the first full date the source states. A text longer than the
    extractor reads raises ``InputError``.
    """
    if reference is None:
        reference = infer_reference(source)
    source_facts = extractor.extract(source, schema, reference)
    summary_facts = extractor.extract(summary, schema, reference)
    return verify(source_facts, summary_facts, schema, policy)


def extract(text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
    """The deterministic extractor's record of ``text``."""
    return DEFAULT_EXTRACTOR.extract(text, schema, reference)
