"""A summary's verification as the attempt engine gets it, wherever it ran."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from factdiff.compression.warm_encoding import warm_body
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.schema.model import FactSchema
from factdiff.verify.check import CheckResult, verify
from factdiff.verify.diff import FactDiff
from factdiff.verify.policy import Outcome, Policy

if TYPE_CHECKING:
    from factdiff.store.warm_columns import WarmBody, WarmTarget

__all__ = [
    "Verification",
    "extract_summary_and_verify",
    "verified_in_process",
    "verify_narrative",
]


@dataclass(frozen=True)
class Verification:
    """A summary's verification as ``Work.verify_summary`` gives it: a ``CheckResult``
    without its source record (the caller has it), with the warm body of a passed summary
    when it was made where the summary was verified."""

    outcome: Outcome
    diff: FactDiff
    summary_facts: FactRecord | None
    """The summary's record; ``None`` when ``body`` was made with its index rows: what the
    warm write needs of it, its keys, is in them, so a worker process does not send it back
    (a body that no longer fits is made again, and its narrative extracted again, by the
    store's thread)."""
    notes: tuple[str, ...]
    body: WarmBody | None = None

    @classmethod
    def of(cls, checked: CheckResult) -> Verification:
        """``checked`` without its source record: its summary's record, no warm body."""
        return cls(checked.outcome, checked.diff, checked.summary_facts, checked.notes)


def extract_summary_and_verify(
    extractor: Extractor,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    policy: Policy,
    source_text: str | None = None,
) -> CheckResult:
    """Extract ``narrative`` and verify its record against the source's (and against the
    source as written, when ``source_text`` is given)."""
    summary_facts = extractor.extract(narrative, schema, source_facts.reference)
    return verify_narrative(narrative, source_facts, summary_facts, schema, policy, source_text)


def verify_narrative(
    narrative: str,
    source_facts: FactRecord,
    summary_facts: FactRecord,
    schema: FactSchema,
    policy: Policy,
    source_text: str | None = None,
) -> CheckResult:
    """Verify a narrative's record against the source's, reading the narrative as written
    (and the source, when ``source_text`` is given): ``factdiff.verify.check.verify``."""
    return verify(
        source_facts,
        summary_facts,
        schema,
        policy,
        summary_text=narrative,
        source_text=source_text,
    )


def verified_in_process(
    extractor: Extractor,
    narrative: str,
    source_facts: FactRecord,
    schema: FactSchema,
    policy: Policy,
    warm: WarmTarget | None,
    source_text: str | None = None,
) -> Verification:
    """In a worker process: the summary's verification, with the warm body of a passed one
    for ``warm`` (none if it cannot be made here: the store's thread makes it again)."""
    checked = extract_summary_and_verify(
        extractor, narrative, source_facts, schema, policy, source_text
    )
    if warm is None or not checked.outcome.passed:
        return Verification.of(checked)
    try:
        body = warm_body(warm, narrative, source_facts, schema, checked.summary_facts)
    except Exception:  # the store's thread makes it again, and reports why it cannot
        return Verification.of(checked)
    said = None if body.index is not None else checked.summary_facts  # the index still needs it
    return Verification(checked.outcome, checked.diff, said, checked.notes, body)
