"""The outcome of a diff, decided by a configurable policy."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from factdiff.schema.model import Criticality
from factdiff.verify.diff import FactDiff, Finding, Verdict

ALL_CRITICALITIES = frozenset(Criticality)


class Outcome(enum.StrEnum):
    """What a compression attempt may lead to."""

    CLEAN = "clean"
    ACCEPTABLE_WITH_NOTES = "acceptable_with_notes"
    FAILED = "failed"

    @property
    def passed(self) -> bool:
        """Whether the summary may replace its source in the warm tier."""
        return self is not Outcome.FAILED

    @property
    def exit_code(self) -> int:
        """``factdiff check`` exit code: 0 clean, 3 acceptable with notes, 1 failed."""
        return {Outcome.CLEAN: 0, Outcome.ACCEPTABLE_WITH_NOTES: 3, Outcome.FAILED: 1}[self]


@dataclass(frozen=True)
class Policy:
    """Which findings fail a summary and which only leave a note.

    The default: failed if any critical fact is missing, any value changed, or anything was
    added; acceptable with notes if only important facts are missing; clean otherwise
    (missing contextual facts are allowed).
    """

    fail_on_missing: frozenset[Criticality] = frozenset({Criticality.CRITICAL})
    note_on_missing: frozenset[Criticality] = frozenset({Criticality.IMPORTANT})
    fail_on_changed: frozenset[Criticality] = ALL_CRITICALITIES
    fail_on_added: frozenset[Criticality] = ALL_CRITICALITIES

    def fails(self, finding: Finding) -> bool:
        """Whether this finding alone fails the summary."""
        rule = {
            Verdict.MISSING: self.fail_on_missing,
            Verdict.CHANGED: self.fail_on_changed,
            Verdict.ADDED: self.fail_on_added,
        }.get(finding.verdict, frozenset())
        return finding.criticality in rule

    def notes(self, diff: FactDiff) -> tuple[Finding, ...]:
        """Findings recorded as known gaps of an accepted summary."""
        return tuple(
            f for f in diff.missing if f.criticality in self.note_on_missing and not self.fails(f)
        )

    def decide(self, diff: FactDiff) -> Outcome:
        """The outcome of ``diff``."""
        if any(self.fails(f) for f in diff.findings):
            return Outcome.FAILED
        if self.notes(diff):
            return Outcome.ACCEPTABLE_WITH_NOTES
        return Outcome.CLEAN


DEFAULT_POLICY = Policy()
