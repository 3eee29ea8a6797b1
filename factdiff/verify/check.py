"""``check``: the diff half of the pipeline on any source/summary pair."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from factdiff.extraction.base import Extractor
from factdiff.extraction.record import FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR, infer_reference
from factdiff.schema.model import FactSchema
from factdiff.values.base import JSON
from factdiff.verify.coverage import Coverage, coverage
from factdiff.verify.diff import FactDiff, diff
from factdiff.verify.policy import DEFAULT_POLICY, Outcome, Policy
from factdiff.verify.restated import with_restated_names, without_names_the_source_writes

__all__ = ["DEFAULT_EXTRACTOR", "CheckResult", "check", "extract", "facts_kept", "verify"]


@dataclass(frozen=True)
class CheckResult:
    """Both records, their diff and the outcome."""

    outcome: Outcome
    diff: FactDiff
    source_facts: FactRecord
    summary_facts: FactRecord
    notes: tuple[str, ...] = ()
    coverage: Coverage | None = None
    """Which source sentences carried a fact (``None`` when ``verify`` had no texts)."""

    @property
    def unverified(self) -> tuple[str, ...]:
        """Source sentences that carried no extracted fact (nothing typed was checked)."""
        return tuple(u.text for u in self.coverage.unverified) if self.coverage else ()

    def summary_line(self) -> str:
        """``clean: 14 facts kept; 2 sentences not covered by the schema were dropped``."""
        kept = facts_kept(self.source_facts, self.diff)
        line = f"{self.outcome.value}: {kept} {'fact' if kept == 1 else 'facts'} kept"
        extra = self.coverage.phrase() if self.coverage else ""
        return f"{line}; {extra}" if extra else line

    def to_json(self) -> dict[str, JSON]:
        """The ``factdiff check --json`` object (``coverage`` when the texts were given)."""
        data = self.diff.to_json()
        out: dict[str, JSON] = {"outcome": self.outcome.value, **data, "notes": list(self.notes)}
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_json()
        return out


def facts_kept(source_facts: FactRecord, result: FactDiff) -> int:
    """The source facts a diff found nothing wrong with (the summary line's ``kept``)."""
    return source_facts.fact_count() - len(
        {id(f.source) for f in result.findings if f.source is not None}
    )


def verify(
    source_facts: FactRecord,
    summary_facts: FactRecord,
    schema: FactSchema,
    policy: Policy = DEFAULT_POLICY,
    *,
    texts: tuple[str, str] | None = None,
    summary_text: str | None = None,
    source_text: str | None = None,
) -> CheckResult:
    """Diff two records of ``schema`` and decide: the pure half of ``check``, no extraction.
    Given ``texts`` (source, summary), the result also reports coverage. Given the summary
    as written (``summary_text``, or the second of ``texts``), the source's names it writes
    out count as restated even where its extractor had no cue to tell them by; given the
    source as written (``source_text``, or the first of ``texts``), a name of the summary's
    inventory that the source writes and does not state is not counted as added
    (``factdiff.verify.restated``)."""
    written = summary_text if summary_text is not None else (texts[1] if texts else None)
    if written is not None:
        summary_facts = with_restated_names(source_facts, summary_facts, written, schema)
    original = source_text if source_text is not None else (texts[0] if texts else None)
    if original is not None:
        summary_facts = without_names_the_source_writes(
            source_facts, summary_facts, original, schema
        )
    result = diff(source_facts, summary_facts, schema)
    outcome = policy.decide(result)
    notes = tuple(f"{f.field} missing" for f in policy.notes(result))
    covered = coverage(texts[0], source_facts, texts[1]) if texts is not None else None
    return CheckResult(outcome, result, source_facts, summary_facts, notes, covered)


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
    return verify(source_facts, summary_facts, schema, policy, texts=(source, summary))


def extract(text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
    """The deterministic extractor's record of ``text``."""
    return DEFAULT_EXTRACTOR.extract(text, schema, reference)
