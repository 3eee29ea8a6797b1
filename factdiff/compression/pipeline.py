"""``compress()``: extract(source) -> summarize -> extract(summary) -> diff -> decide.

A pure function of (text, schema, extractor, summarizer ladder, policy): no I/O besides the
model calls. Storage, scheduling and events sit around it (see ``factdiff.demotion.demoter``).
Every rung starts from the source text, never from an earlier summary; a stricter rung is
told exactly which facts the previous diff reported missing or changed. ``acompress`` is the
ladder on asyncio (the attempt engine's core); ``compress`` is its synchronous wrapper.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Never, TypeVar

from factdiff.compression.engine import (
    NUL_REPLACEMENT,
    AttemptEngine,
    AttemptJob,
    AttemptResult,
    Rung,
    facts_to_keep,
    merge_facts,
    narrative_of,
    summary_request,
)
from factdiff.compression.executor import Work
from factdiff.errors import UsageError
from factdiff.extraction.base import Extractor
from factdiff.extraction.record import Fact, FactRecord
from factdiff.providers.accounting import ModelCall
from factdiff.providers.base import Usage
from factdiff.schema.model import FactSchema
from factdiff.values.base import JSON
from factdiff.verify.check import DEFAULT_EXTRACTOR
from factdiff.verify.policy import DEFAULT_POLICY, Outcome, Policy

__all__ = [
    "NUL_REPLACEMENT",
    "AttemptResult",
    "CompressionResult",
    "LadderClimb",
    "Rung",
    "acompress",
    "check_compressible",
    "compress",
    "compress_many",
    "facts_to_keep",
    "merge_facts",
    "narrative_of",
    "run_sync",
    "summary_request",
]

T = TypeVar("T")


@dataclass(frozen=True)
class CompressionResult:
    """Every attempt made and the final outcome; ``summary`` is the passing one, if any.

    ``calls`` is every model call made, the source extraction's included.
    """

    outcome: Outcome
    summary: str | None
    attempts: tuple[AttemptResult, ...]
    source_facts: FactRecord
    calls: tuple[ModelCall, ...] = ()

    def usage(self) -> Usage:
        """Totals over ``calls`` (cost None when a billed call has no known price)."""
        total = Usage()
        for call in self.calls:
            total.record(call)
        return total

    def to_json(self) -> dict[str, JSON]:
        """The ``factdiff compress --json`` object."""
        return {
            "outcome": self.outcome.value,
            "summary": self.summary,
            "schema": self.source_facts.schema.to_json(),
            "attempts": [a.to_json() for a in self.attempts],
            "usage": {
                **self.usage().snapshot(),
                "model_calls": [call.to_json() for call in self.calls],
            },
        }


class LadderClimb:
    """The bookkeeping of one climb: the attempts so far, the facts the next rung must keep,
    and every model call made."""

    def __init__(self) -> None:
        self.source_facts: FactRecord | None = None
        self.attempts: list[AttemptResult] = []
        self.must_keep: tuple[Fact, ...] = ()
        self.calls: list[ModelCall] = []

    def record(self, attempt: AttemptResult) -> bool:
        """Add an attempt; True when it passed (stop climbing)."""
        self.attempts.append(attempt)
        if attempt.outcome.passed:
            return True
        self.must_keep = attempt.next_must_keep
        return False

    def result(self) -> CompressionResult:
        """The passing attempt's summary, or failed when no rung passed."""
        assert self.source_facts is not None
        last = self.attempts[-1]
        passed = last.outcome.passed
        return CompressionResult(
            last.outcome if passed else Outcome.FAILED,
            last.summary if passed else None,
            tuple(self.attempts),
            self.source_facts,
            tuple(self.calls),
        )


def check_compressible(text: str, ladder: Sequence[Rung]) -> None:
    """Refuse an empty ladder or an empty source before any work is done."""
    if not ladder:
        raise UsageError("the retry ladder is empty; configure at least one rung")
    if not text.strip():
        raise UsageError("the source is empty or whitespace: there is nothing to compress")


async def acompress(
    text: str,
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    reference: date | None = None,
    work: Work | None = None,
) -> CompressionResult:
    """Climb the ladder until a summary passes the diff or the rungs run out (asyncio).

    Blocking stages run in threads unless ``work`` says otherwise, so the caller's event loop
    stays free. A provider or model error stops the climb and is raised (typed).
    """
    check_compressible(text, ladder)
    own_work = work is None
    engine = AttemptEngine(extractor or DEFAULT_EXTRACTOR, policy, work or Work.threads(1))
    climb = LadderClimb()
    try:
        for index, rung in enumerate(ladder):
            job = AttemptJob(
                text, schema, rung, index, reference, climb.source_facts, climb.must_keep
            )
            run = await engine.run(job)
            climb.calls.extend(run.usage.records)
            if run.error is not None:
                raise run.error
            assert run.attempt is not None
            climb.source_facts = run.source_facts
            if climb.record(run.attempt):
                break
    finally:
        if own_work:
            engine.work.close()
    return climb.result()


def compress(
    text: str,
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    reference: date | None = None,
) -> CompressionResult:
    """``acompress`` from synchronous code (every stage inline, one attempt at a time)."""
    return run_sync(
        acompress(
            text,
            schema,
            ladder,
            extractor=extractor,
            policy=policy,
            reference=reference,
            work=Work.inline(),
        )
    )


async def compress_many(
    texts: Sequence[str],
    schema: FactSchema,
    ladder: Sequence[Rung],
    *,
    extractor: Extractor | None = None,
    policy: Policy = DEFAULT_POLICY,
    concurrency: int = 32,
    work: Work | None = None,
) -> list[CompressionResult | BaseException]:
    """``acompress`` over many texts, at most ``concurrency`` at once; errors returned."""
    if concurrency < 1:
        raise UsageError("concurrency must be at least 1")
    gate = asyncio.Semaphore(concurrency)
    shared = work or Work.threads(min(concurrency, 32))

    async def one(text: str) -> CompressionResult | BaseException:
        async with gate:
            try:
                return await acompress(
                    text, schema, ladder, extractor=extractor, policy=policy, work=shared
                )
            except Exception as exc:
                return exc

    try:
        return list(await asyncio.gather(*(one(text) for text in texts)))
    finally:
        if work is None:
            shared.close()


def run_sync(coro: Coroutine[object, Never, T]) -> T:
    """Run ``coro`` to completion from synchronous code, on a fresh event loop (in a helper
    thread when this thread already runs one)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    outcome: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(asyncio.run(coro))
        except BaseException as exc:
            failure.append(exc)

    helper = threading.Thread(target=target, name="factdiff-compress")
    helper.start()
    helper.join()
    if failure:
        raise failure[0]
    return outcome[0]
