"""The attempt engine: one attempt on one text, asyncio at the core.

``await AttemptEngine(extractor, policy, work).run(job)`` makes one attempt:

1. the source's fact record: the job's (cached) one, else extracted (role ``extract_source``);
2. a summary from the job's rung, always of the source text (role ``summarize``), told the
   facts the last verified attempt lost (``must_keep``);
3. the summary's record (role ``extract_summary``) and ``verify``: diff and outcome.

Every model call made on the way is metered into the run (``AttemptRun.usage``: each call's model,
role, tokens, cost and outcome), whether the attempt passed, failed or stopped on an error, and the
error is returned typed, never raised: ``compress`` raises it, demotion records an error attempt.
CPU-bound stages run where ``Work`` puts them (inline, threads, processes).
``factdiff.compression.pipeline`` climbs the ladder with it; ``factdiff.demotion.runner`` keeps a
window of them in flight for demotion.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import date

from factdiff.compression.executor import Work
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import infer_reference
from factdiff.providers import meter
from factdiff.providers.base import Usage
from factdiff.providers.client import cost_str
from factdiff.schema.model import FactSchema
from factdiff.store.model import KnownGap
from factdiff.store.warm_columns import WarmBody, WarmTarget
from factdiff.summarize.base import Summarizer, Summary, SummaryRequest
from factdiff.summarize.text_units import count_words
from factdiff.values.base import JSON
from factdiff.verify.coverage import Coverage, coverage
from factdiff.verify.diff import FactDiff, Verdict
from factdiff.verify.policy import DEFAULT_POLICY, Outcome, Policy

__all__ = [
    "NUL_REPLACEMENT",
    "AttemptEngine",
    "AttemptJob",
    "AttemptResult",
    "AttemptRun",
    "Rung",
    "facts_to_keep",
    "merge_facts",
    "narrative_of",
    "summary_request",
]

NUL_REPLACEMENT = "\ufffd"
"""Narratives never hold NUL (portable text columns); the verified text is the stored one.
Sources keep their NULs byte for byte in the cold archive."""

EXTRACT_SOURCE = "extract_source"
SUMMARIZE = "summarize"
EXTRACT_SUMMARY = "extract_summary"


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
    """One verified run of the pipeline on one entry with one rung.

    ``must_keep`` are the facts this attempt was told to keep; ``next_must_keep`` the ones
    the next attempt must keep when this one failed (``must_keep`` plus what its diff lost);
    ``known_gaps`` the facts an accepted summary lost by policy. Tokens and cost total every
    model call made for the attempt (``cost_usd`` None when a billed call has no price).
    """

    rung: int
    summarizer: str
    method_version: str
    budget_words: int
    summary: str
    outcome: Outcome
    diff: FactDiff
    summary_facts: FactRecord | None
    """``None`` when ``warm_body`` holds what the warm write needs of it (see
    ``Verification.summary_facts``); a failed summary always has it."""
    must_keep: tuple[Fact, ...]
    duration_ms: float
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: str | None = None
    next_must_keep: tuple[Fact, ...] = ()
    known_gaps: tuple[KnownGap, ...] = ()
    warm_body: WarmBody | None = None
    """A passed summary's warm row but its meta, when made where it was verified."""
    coverage: Coverage | None = None
    """The source sentences the diff verified, and the unverified ones the summary dropped."""

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
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
        }


@dataclass(frozen=True)
class AttemptJob:
    """What one attempt needs: the text, its schema, the rung, and what is known already."""

    text: str
    schema: FactSchema
    rung: Rung
    rung_index: int = 0
    reference: date | None = None
    """The entry's own date; None: the first full date the text states."""
    source_facts: FactRecord | None = None
    """The source's record when known (extraction cache, an earlier rung); else extracted."""
    must_keep: tuple[Fact, ...] = ()
    """The facts the last verified attempt lost: the summary must state them."""
    warm: WarmTarget | None = None
    """Where a passed summary goes: its warm body is made where it is verified (in a
    worker process; see ``Work.verify_summary``)."""


Stage = tuple[str, float, float]
"""(name, start, end) on ``time.perf_counter``: where an attempt spent its time."""


@dataclass(frozen=True)
class AttemptRun:
    """An attempt's result, or the typed error that stopped it, with every call it made.

    ``extracted`` is True when the source record was made here (not given by the job): a
    caller keeping the entry hot may cache it. ``source_facts`` is None only when the source
    extraction itself failed.
    """

    job: AttemptJob
    source_facts: FactRecord | None
    extracted: bool
    attempt: AttemptResult | None
    error: BaseException | None
    usage: Usage
    stages: tuple[Stage, ...] = ()
    duration_ms: float = 0.0


def facts_to_keep(diff: FactDiff) -> tuple[Fact, ...]:
    """The source facts a diff reported missing or changed: the next rung must keep them."""
    return tuple(
        f.source
        for f in diff.findings
        if f.verdict in (Verdict.MISSING, Verdict.CHANGED) and f.source is not None
    )


def merge_facts(kept: tuple[Fact, ...], new: tuple[Fact, ...]) -> tuple[Fact, ...]:
    """``kept`` plus the facts of ``new`` it does not hold yet (by type and value)."""
    seen = {(f.value.type, f.value.key()) for f in kept}
    return kept + tuple(f for f in new if (f.value.type, f.value.key()) not in seen)


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


class _Clock:
    """The stages of one attempt."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.stages: list[Stage] = []

    def stage(self, name: str, start: float) -> None:
        self.stages.append((name, start, time.perf_counter()))


class AttemptEngine:
    """Makes attempts with one extractor and policy; CPU work goes where ``work`` says."""

    def __init__(
        self, extractor: Extractor, policy: Policy = DEFAULT_POLICY, work: Work | None = None
    ) -> None:
        self.extractor = extractor
        self.policy = policy
        self.work = work or Work.inline()

    async def run(
        self, job: AttemptJob, slot: AbstractAsyncContextManager[object] | None = None
    ) -> AttemptRun:
        """One attempt (see the module docstring); errors are returned, not raised.

        ``slot`` is held around the summarizer call only: a window of attempts bounds its
        model calls with it while the other stages of its entries run ahead or behind.
        """
        clock = _Clock()
        with meter.metered() as usage:
            source = job.source_facts
            try:
                if source is None:
                    source = await self._extract_source(job, clock)
                attempt = await self._attempt(job, source, usage, clock, slot or nullcontext())
            except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
                raise
            except Exception as error:  # returned: one entry's failure never stops a pass
                return self._run(job, source, None, error, usage, clock)
        return self._run(job, source, attempt, None, usage, clock)

    def _run(
        self,
        job: AttemptJob,
        source: FactRecord | None,
        attempt: AttemptResult | None,
        error: BaseException | None,
        usage: Usage,
        clock: _Clock,
    ) -> AttemptRun:
        return AttemptRun(
            job,
            source,
            job.source_facts is None and source is not None,
            attempt,
            error,
            usage,
            tuple(clock.stages),
            (time.perf_counter() - clock.started) * 1000,
        )

    async def _extract_source(self, job: AttemptJob, clock: _Clock) -> FactRecord:
        started = time.perf_counter()
        reference = job.reference if job.reference is not None else infer_reference(job.text)
        with meter.role(EXTRACT_SOURCE):
            record = await self.work.extract(self.extractor, job.text, job.schema, reference)
        clock.stage("extract", started)
        return record

    async def _attempt(
        self,
        job: AttemptJob,
        source: FactRecord,
        usage: Usage,
        clock: _Clock,
        slot: AbstractAsyncContextManager[object],
    ) -> AttemptResult:
        request = summary_request(job.text, job.schema, job.rung, source, job.must_keep)
        async with slot:
            started = time.perf_counter()
            with meter.role(SUMMARIZE):
                summary = await self.work.summarize(job.rung.summarizer, request)
            clock.stage("summarize", started)
        narrative = narrative_of(summary)
        started = time.perf_counter()
        with meter.role(EXTRACT_SUMMARY):
            checked = await self.work.verify_summary(
                self.extractor, narrative, source, job.schema, self.policy, job.warm, job.text
            )
        clock.stage("verify", started)
        outcome = checked.outcome
        metered = usage.calls > 0
        return AttemptResult(
            rung=job.rung_index,
            summarizer=summary.summarizer,
            method_version=summary.method_version,
            budget_words=request.budget_words,
            summary=narrative,
            outcome=outcome,
            diff=checked.diff,
            summary_facts=checked.summary_facts,
            must_keep=job.must_keep,
            duration_ms=(time.perf_counter() - clock.started) * 1000,
            tokens_in=usage.tokens_in if metered else summary.tokens_in,
            tokens_out=usage.tokens_out if metered else summary.tokens_out,
            cost_usd=cost_str(usage.known_cost) if metered else summary.cost_usd,
            next_must_keep=()
            if outcome.passed
            else merge_facts(job.must_keep, facts_to_keep(checked.diff)),
            known_gaps=tuple(
                KnownGap(f.field, f.criticality, f.fact_type)
                for f in self.policy.notes(checked.diff)
            ),
            warm_body=checked.body,
            coverage=coverage(job.text, source, narrative),
        )
