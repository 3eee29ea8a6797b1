"""A warm record's column: its frame restores the record, and its digest, hashed from the
JSON text that checks the record, is ``record_digest``'s."""

from __future__ import annotations

from datetime import date

import pytest

from factdiff.errors import InputError
from factdiff.schema.builtin import builtin_schema
from factdiff.store import codec, compact
from factdiff.store.warm_columns import (
    SMALL_RECORD_BYTES,
    SMALL_RECORD_LEVEL,
    record_column,
    record_digest,
)
from factdiff.verify.check import DEFAULT_EXTRACTOR

SOURCE = "Refund of €1.240,50 for order #A-77 to Zoë Müller, due 3 April; ticket TK-9."


def test_the_column_restores_the_record_and_carries_its_digest() -> None:
    record = DEFAULT_EXTRACTOR.extract(
        SOURCE, builtin_schema("customer_service"), date(2026, 3, 1)
    ).to_json()
    column = record_column(record, SOURCE, None)
    assert column.digest == record_digest(record)
    assert compact.unpack_record(codec.zstd_decompress(column.frame), SOURCE) == record


def test_a_small_record_is_compressed_at_the_cheaper_level() -> None:
    """At most ``SMALL_RECORD_BYTES`` of compact form: level 12; above: ``ZSTD_LEVEL``. Both
    restore the record."""
    schema = builtin_schema("customer_service")
    long_source = " ".join(f"Order #A-{n} refunded €{n},50 on {n % 28 + 1} May." for n in range(60))
    for source in (SOURCE, long_source):
        record = DEFAULT_EXTRACTOR.extract(source, schema, date(2026, 3, 1)).to_json()
        packed = compact.pack_record(record, source)
        small = len(packed) <= SMALL_RECORD_BYTES
        levels = (SMALL_RECORD_LEVEL, codec.ZSTD_LEVEL)
        level, other = levels if small else levels[::-1]
        assert small is (source == SOURCE)
        column = record_column(record, source, None)
        assert column.frame == codec.zstd_compress(packed, None, level)
        assert column.frame != codec.zstd_compress(packed, None, other)  # the levels differ
        assert compact.unpack_record(codec.zstd_decompress(column.frame), source) == record


@pytest.mark.parametrize("bad", [float("nan"), "lone \ud800 surrogate"])
def test_a_record_that_json_text_could_not_hold_is_refused(bad: object) -> None:
    with pytest.raises(InputError, match="fact record"):
        record_column({"fields": {"note": [{"value": bad}]}}, SOURCE, None)
