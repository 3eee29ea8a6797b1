"""``compress()``: extract(source) -> summarize -> extract(summary) -> diff -> decide.

A pure function of (text, schema, extractor, summarizer ladder, policy): no I/O besides the
model calls. Storage, scheduling and events sit around it (see ``factdiff.demote``).
Every rung starts from the source text, never from an earlier summary; a stricter rung is
told exactly which facts the previous diff reported missing or changed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from factdiff.check import check
from factdiff.diff import FactDiff, Verdict
from factdiff.errors import UsageError
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor, infer_reference
from factdiff.policy import DEFAULT_POLICY, Outcome, Policy
from factdiff.providers.base import Usage
from factdiff.providers.meter import metered
from factdiff.record import Fact, FactRecord
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import Summarizer, Summary, SummaryRequest
from factdiff.summarize.text_units import count_words
from factdiff.values.base import JSON

NUL_REPLACEMENT = "\ufffd"
"""Narratives never hold NUL (portable text columns); the verified text is the stored one.
Sources keep their NULs byte for byte in the cold archive."""


@dataclass(frozen=True)
class Rung:
    """One step of the retry ladder: which summarizer, with what budget and strictness."""

    summarizer: Summarizer
    budget_words: int | None = None
    """Word budget; None means ``budget_ratio`` of the source's words."""
    budget_ratio: float = 0.35
    min_words: int = 30
    strictness: int = 0

    def budget_for(self, text: str) -> int:
        """The word budget for one source text."""
        if self.budget_words is not None:
            return self.budget_words
        return max(self.min_words, round(count_words(text) * self.budget_ratio))

    def describe(self) -> str:
        """``extractive budget=0.35x strict=1``."""
        budget = (
            f"{self.budget_words}w" if self.budget_words is not None else f"{self.budget_ratio}x"
        )
        return f"{self.summarizer.identity} budget={budget} strict={self.strictness}"


@dataclass(frozen=True)
class AttemptResult:
    """One run of the pipeline on one entry with one rung."""

    rung: int
    summarizer: str
    method_version: str
    budget_words: int
    summary: str
    outcome: Outcome
    diff: FactDiff
    summary_facts: FactRecord
    must_keep: tuple[Fact, ...]
    duration_ms: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The ``compress --json`` attempt object."""
        return {
            "rung": self.rung,
            "summarizer": self.summarizer,
            "method_version": self.method_version,
            "budget_words": self.budget_words,
            "outcome": self.outcome.value,
            "summary": self.summary,
            "must_keep": [f.value.canonical() for f in self.must_keep],
            **{
                k: v for k, v in self.diff.to_json().items() if k in ("missing", "changed", "added")
            },
            "duration_ms": round(self.duration_ms, 3),
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True)
class CompressionResult:
    """Every attempt made and the final outcome; ``summary`` is the passing one, if any."""

    outcome: Outcome
    summary: str | None
    attempts: tuple[AttemptResult, ...]
    source_facts: FactRecord

    def to_json(self) -> dict[str, JSON]:
        """The ``factdiff compress --json`` object."""
        return {
            "outcome": self.outcome.value,
            "summary": self.summary,
            "schema": self.source_facts.schema.to_json(),
            "attempts": [a.to_json() for a in self.attempts],
        }


def facts_to_keep(diff: FactDiff) -> tuple[Fact, ...]:
    """The source facts a diff reported missing or changed: the next rung must keep them."""
    return tuple(
        f.source
        for f in diff.findings
        if f.verdict in (Verdict.MISSING, Verdict.CHANGED) and f.source is not None
    )


def summary_request(
    text: str,
    schema: FactSchema,
    rung: Rung,
    source_facts: FactRecord,
    must_keep: tuple[Fact, ...] = (),
) -> SummaryRequest:
    """What one rung asks its summarizer for: always the source text, never a summary."""
    return SummaryRequest(
        text=text,
        schema=schema,
        source_record=source_facts,
        budget_words=rung.budget_for(text),
        must_keep=must_keep,
        strictness=rung.strictness,
    )


def narrative_of(summary: Summary) -> str:
    """The text that is verified and stored (NUL replaced, see ``NUL_REPLACEMENT``)."""
    return summary.text.replace("\0", NUL_REPLACEMENT)


def verify_summary(
    request: SummaryRequest,
    summary: Summary,
    rung_index: int,
    *,
    extractor: Extractor,
    policy: Policy = DEFAULT_POLICY,
    started: float,
) -> AttemptResult:
    """Extract the summary, diff it against the source's facts and decide."""
    narrative = narrative_of(summary)
    result = check(
        request.text,
        narrative,
        request.schema,
        reference=request.source_record.reference,
        extractor=extractor,
        policy=policy,
        source_facts=request.source_record,
    )
    return AttemptResult(
        rung=rung_index,
        summarizer=summary.summarizer,
        method_version=summary.method_version,
        budget_words=request.budget_words,
        summary=narrative,
        outcome=result.outcome,
        diff=result.diff,
        summary_facts=result.summary_facts,
        must_keep=request.must_keep,
        duration_ms=(time.perf_counter() - started) * 1000,
        tokens_in=summary.tokens_in,
        tokens_out=summary.tokens_out,
        cost_usd=summary.cost_usd,
    )


def run_attempt(
    text: str,
    schema: FactSchema,
    rung: Rung,
    rung_index: int,
    source_facts: FactRecord,
    *,
    must_keep: tuple[Fact, ...] = (),
    extractor: Extractor,
    policy: Policy = DEFAULT_POLICY,
) -> AttemptResult:
    """Summarize with one rung and verify the summary against the source's facts."""
    started = time.perf_counter()
    with metered() as usage:
        request = summary_request(text, schema, rung, source_facts, must_keep)
        summary = rung.summarizer.summarize(request)
        attempt = verify_summary(
            request, summary, rung_index, extractor=extractor, policy=policy, started=started
        )
    return with_usage(attempt, usage)


def with_usage(attempt: AttemptResult, usage: Usage) -> AttemptResult:
    """The attempt with the tokens and cost of every model call metered for it.

    Metered calls cover the summarizer and any model extractor; without metered calls the
    summarizer's own report stands (a summarizer that is not one of our clients).
    """
    if usage.calls == 0:
        return attempt
    return replace(
        attempt,
        tokens_in=usage.tokens_in,
        tokens_out=usage.tokens_out,
        cost_usd=str(usage.cost_usd),
    )


def compress(
    text: str,
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    reference: date | None = None,
) -> CompressionResult:
    """Climb the ladder until a summary passes the diff or the rungs run out."""
    check_compressible(text, ladder)
    extractor = extractor or RulesExtractor()
    climb = LadderClimb(extractor.extract(text, schema, reference or infer_reference(text)))
    for index, rung in enumerate(ladder):
        attempt = run_attempt(
            text,
            schema,
            rung,
            index,
            climb.source_facts,
            must_keep=climb.must_keep,
            extractor=extractor,
            policy=policy,
        )
        if climb.record(attempt):
            break
    return climb.result()


def check_compressible(text: str, ladder: Sequence[Rung]) -> None:
    """Refuse an empty ladder or an empty source before any work is done."""
    if not ladder:
        raise UsageError("the retry ladder is empty; configure at least one rung")
    if not text.strip():
        raise UsageError("the source is empty or whitespace: there is nothing to compress")


class LadderClimb:
    """The bookkeeping of one climb, shared by ``compress`` and its asyncio twin: the
    attempts so far and the facts the next rung must keep."""

    def __init__(self, source_facts: FactRecord) -> None:
        self.source_facts = source_facts
        self.attempts: list[AttemptResult] = []
        self.must_keep: tuple[Fact, ...] = ()

    def record(self, attempt: AttemptResult) -> bool:
        """Add an attempt; True when it passed (stop climbing)."""
        self.attempts.append(attempt)
        if attempt.outcome.passed:
            return True
        self.must_keep = merge_facts(self.must_keep, facts_to_keep(attempt.diff))
        return False

    def result(self) -> CompressionResult:
        """The passing attempt's summary, or failed when no rung passed."""
        last = self.attempts[-1]
        if last.outcome.passed:
            return CompressionResult(
                last.outcome, last.summary, tuple(self.attempts), self.source_facts
            )
        return CompressionResult(Outcome.FAILED, None, tuple(self.attempts), self.source_facts)


def merge_facts(kept: tuple[Fact, ...], new: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """``kept`` plus the facts of ``new`` it does not hold yet (by type and value)."""
    seen = {(f.value.type, f.value.key()) for f in kept}
    return kept + tuple(f for f in new if (f.value.type, f.value.key()) not in seen)
