"""A stored fact record keys an entry as its extraction did (``stored_keys``): what lets an
import index a store from the records it carries instead of extracting every entry again."""

from __future__ import annotations

import pytest

from factdiff.demo import DemoEntry, generate_corpus
from factdiff.retrieve.index import extract_source, pack_record, reference_date, stored_keys
from factdiff.retrieve.keys import key_hashes, record_keys
from factdiff.schema.builtin import builtin_schema
from factdiff.store.indexing import unpack_json
from factdiff.values.base import JSON

CORPUS = generate_corpus(40)


@pytest.mark.parametrize("item", CORPUS, ids=[f"{i}-{e.schema}" for i, e in enumerate(CORPUS)])
def test_a_packed_record_read_back_has_its_extraction_s_keys(item: DemoEntry) -> None:
    schema = builtin_schema(item.schema or "generic")
    record = extract_source(item.content, schema, reference_date(item.occurred_at, item.content))
    keys = key_hashes(record_keys(record))
    assert keys
    assert stored_keys(unpack_json(pack_record(record))) == keys


@pytest.mark.parametrize("json", [{}, {"fields": {}}, {"schema": "x", "facts": [1]}])
def test_json_that_is_no_fact_record_has_no_keys(json: dict[str, JSON]) -> None:
    assert stored_keys(json) is None
