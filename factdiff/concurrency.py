"""Many compressions at once, with asyncio, bounded per provider.

``run_attempts(jobs)`` runs one attempt per job (what ``Demoter.demote_entry`` does per
entry, without the store): extract the source when the job brings no cached record,
summarize with the job's rung, extract the summary, diff and decide. At most ``concurrency``
jobs are in flight; every model request also waits for its provider's bound
(``factdiff.providers.set_provider_limit``), which holds across all callers in the process.
A failed job (a typed ``ProviderError``: rate limit, quota, truncation...) is returned as its
error, never raised, so one entry's failure never stops the batch.

``acompress`` is ``factdiff.compress`` on asyncio; ``compress_many`` runs it over many texts.
Components with ``asummarize`` / ``aextract`` (the LLM ones) are awaited; the offline ones run
in a worker thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from factdiff.errors import UsageError
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor, infer_reference
from factdiff.pipeline import (
    AttemptResult,
    CompressionResult,
    LadderClimb,
    Rung,
    check_compressible,
    narrative_of,
    summary_request,
    verify_summary,
    with_usage,
)
from factdiff.policy import DEFAULT_POLICY, Policy
from factdiff.providers.meter import metered
from factdiff.record import Fact, FactRecord
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import Summarizer, Summary, SummaryRequest

__all__ = [
    "AttemptJob",
    "JobResult",
    "acompress",
    "aextract",
    "arun_attempt",
    "asummarize",
    "compress_many",
    "run_attempts",
    "run_attempts_sync",
]


async def aextract(
    extractor: Extractor, text: str, schema: FactSchema, reference: date | None
) -> FactRecord:
    """``extractor.extract`` without blocking the event loop."""
    native = getattr(extractor, "aextract", None)
    if native is not None:
        return cast(FactRecord, await native(text, schema, reference))
    return await asyncio.to_thread(extractor.extract, text, schema, reference)


async def asummarize(summarizer: Summarizer, request: SummaryRequest) -> Summary:
    """``summarizer.summarize`` without blocking the event loop."""
    native = getattr(summarizer, "asummarize", None)
    if native is not None:
        return cast(Summary, await native(request))
    return await asyncio.to_thread(summarizer.summarize, request)


class _Prepared:
    """Hands ``check`` the summary record that was extracted asynchronously."""

    def __init__(self, text: str, record: FactRecord, identity: str) -> None:
        self.text, self.record, self.identity = text, record, identity

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        if text != self.text:  # pragma: no cover - check() only extracts the summary
            raise RuntimeError("unexpected extraction")
        return self.record


async def arun_attempt(
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
    """``factdiff.pipeline.run_attempt`` on asyncio: summarize, extract the summary, verify."""
    started = time.perf_counter()
    with metered() as usage:
        request = summary_request(text, schema, rung, source_facts, must_keep)
        summary = await asummarize(rung.summarizer, request)
        narrative = narrative_of(summary)
        summary_facts = await aextract(extractor, narrative, schema, source_facts.reference)
        prepared = _Prepared(narrative, summary_facts, extractor.identity)
        attempt = verify_summary(
            request, summary, rung_index, extractor=prepared, policy=policy, started=started
        )
    return with_usage(attempt, usage)


@dataclass(frozen=True)
class AttemptJob:
    """One attempt on one entry. ``source_facts`` None: extract the source first."""

    text: str
    schema: FactSchema
    rung: Rung
    rung_index: int = 0
    source_facts: FactRecord | None = None
    must_keep: tuple[Fact, ...] = ()
    reference: date | None = None
    key: Any = None
    """The caller's handle (an entry id), returned with the result."""


@dataclass(frozen=True)
class JobResult:
    """A job's attempt, or the error that stopped it (a typed ``ProviderError`` usually)."""

    job: AttemptJob
    source_facts: FactRecord | None
    """The source record used (extracted here when the job had none: cache it)."""
    attempt: AttemptResult | None = None
    error: BaseException | None = None


async def _run_job(job: AttemptJob, extractor: Extractor, policy: Policy) -> JobResult:
    source = job.source_facts
    try:
        if source is None:
            reference = job.reference or infer_reference(job.text)
            source = await aextract(extractor, job.text, job.schema, reference)
        attempt = await arun_attempt(
            job.text,
            job.schema,
            job.rung,
            job.rung_index,
            source,
            must_keep=job.must_keep,
            extractor=extractor,
            policy=policy,
        )
    except Exception as exc:  # returned, not raised: one entry never stops the batch
        return JobResult(job, source, None, exc)
    return JobResult(job, source, attempt)


async def run_attempts(
    jobs: Sequence[AttemptJob],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    concurrency: int = 32,
) -> list[JobResult]:
    """One attempt per job, at most ``concurrency`` at once; results in the jobs' order."""
    if concurrency < 1:
        raise UsageError("concurrency must be at least 1")
    extractor = extractor or RulesExtractor()
    gate = asyncio.Semaphore(concurrency)

    async def bounded(job: AttemptJob) -> JobResult:
        async with gate:
            return await _run_job(job, extractor, policy)

    return list(await asyncio.gather(*(bounded(job) for job in jobs)))


def run_attempts_sync(
    jobs: Sequence[AttemptJob],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    concurrency: int = 32,
) -> list[JobResult]:
    """``run_attempts`` from synchronous code (e.g. a demotion pass over a batch)."""
    return asyncio.run(
        run_attempts(jobs, extractor=extractor, policy=policy, concurrency=concurrency)
    )


async def acompress(
    text: str,
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    reference: date | None = None,
) -> CompressionResult:
    """``factdiff.compress`` on asyncio: climb the ladder until a summary passes."""
    check_compressible(text, ladder)
    extractor = extractor or RulesExtractor()
    source_facts = await aextract(extractor, text, schema, reference or infer_reference(text))
    climb = LadderClimb(source_facts)
    for index, rung in enumerate(ladder):
        attempt = await arun_attempt(
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


async def compress_many(
    texts: Sequence[str],
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    concurrency: int = 32,
) -> list[CompressionResult | BaseException]:
    """``acompress`` over many texts, at most ``concurrency`` at once; errors returned."""
    if concurrency < 1:
        raise UsageError("concurrency must be at least 1")
    gate = asyncio.Semaphore(concurrency)

    async def one(text: str) -> CompressionResult | BaseException:
        async with gate:
            try:
                return await acompress(text, schema, ladder, extractor=extractor, policy=policy)
            except Exception as exc:
                return exc

    return list(await asyncio.gather(*(one(text) for text in texts)))
