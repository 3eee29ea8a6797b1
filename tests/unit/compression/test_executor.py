"""``factdiff.compression.executor``: a summary ``Work`` verifies in a worker process is the one
verified inline, with the warm body of a passed one made where it was verified."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
import zstandard

from factdiff.compression.executor import Work
from factdiff.compression.process_pool import shutdown_pools
from factdiff.compression.verification import Verification
from factdiff.schema.builtin import generic_schema
from factdiff.schema.model import FactSchema
from factdiff.store import codec
from factdiff.store.warm_columns import WarmTarget, encode_body
from factdiff.verify.check import DEFAULT_EXTRACTOR
from factdiff.verify.policy import DEFAULT_POLICY, Outcome
from tests.conftest import worked


@pytest.fixture(autouse=True)
def _pools() -> object:
    yield None
    shutdown_pools()


def test_a_verification_in_a_process_is_the_one_made_here(
    customer_service: FactSchema,
) -> None:
    source = worked("source")
    record = DEFAULT_EXTRACTOR.extract(source, customer_service)

    async def main(summary: str) -> tuple[Verification, Verification]:
        pooled = await Work.processes(1).verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY
        )
        inline = await Work.inline().verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY
        )
        return pooled, inline

    for summary in (worked("faithful"), worked("fluent")):
        pooled, inline = asyncio.run(main(summary))
        assert pooled == inline
        assert pooled.summary_facts == DEFAULT_EXTRACTOR.extract(
            summary, customer_service, record.reference
        )
        assert pooled.body is None  # no warm target


def test_a_passed_summary_gets_its_warm_body_where_it_was_verified(
    customer_service: FactSchema,
) -> None:
    source = worked("source")
    record = DEFAULT_EXTRACTOR.extract(source, customer_service)
    data = b"a dictionary of the agent's words: order, refund, invoice " * 40
    target = WarmTarget("e1", source, codec.content_hash(source.encode()), (7, data))

    async def main(summary: str) -> tuple[Verification, Verification]:
        pooled = await Work.processes(1).verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY, target
        )
        inline = await Work.inline().verify_summary(
            DEFAULT_EXTRACTOR, summary, record, customer_service, DEFAULT_POLICY, target
        )
        assert inline.body is None  # no worker process: the store's thread makes it
        return pooled, inline

    summary = worked("faithful")
    pooled, inline = asyncio.run(main(summary))
    assert inline.summary_facts is not None
    expected = encode_body(
        "e1",
        source,
        target.content_hash,
        summary,
        record.to_json(),
        (7, zstandard.ZstdCompressionDict(data)),
        SchemaOf(customer_service),
        inline.summary_facts,
    )
    assert pooled.body is not None
    assert pooled.body == expected
    assert pooled.body.dictionary_hash == hashlib.sha256(data).digest()
    assert pooled.summary_facts is None  # the body holds what the warm write needs of it
    assert (pooled.outcome, pooled.diff, pooled.notes) == (
        inline.outcome,
        inline.diff,
        inline.notes,
    )
    failed, _ = asyncio.run(main(worked("fluent")))
    assert failed.body is None  # a failed summary has no warm row...
    assert failed.summary_facts is not None  # ...and its failure event shows its record


class SchemaOf:
    def __init__(self, schema: FactSchema) -> None:
        self.schema = schema

    def get(self, name: str, version: int | None = None) -> FactSchema | None:
        return self.schema


def test_the_source_as_written_reaches_the_verification_in_a_process_and_here() -> None:
    source = (
        "Charlie Chan is a cheap Chinese restaurant. A taxi between Charlie Chan and the museum."
    )
    summary = "A taxi between Charlie Chan and the museum."
    schema = generic_schema()
    record = DEFAULT_EXTRACTOR.extract(source, schema)

    async def main(source_text: str | None) -> tuple[Verification, Verification]:
        pooled = await Work.processes(1).verify_summary(
            DEFAULT_EXTRACTOR, summary, record, schema, DEFAULT_POLICY, None, source_text
        )
        inline = await Work.inline().verify_summary(
            DEFAULT_EXTRACTOR, summary, record, schema, DEFAULT_POLICY, None, source_text
        )
        return pooled, inline

    for source_text, outcome in ((None, Outcome.FAILED), (source, Outcome.CLEAN)):
        pooled, inline = asyncio.run(main(source_text))
        assert pooled.outcome is inline.outcome is outcome
