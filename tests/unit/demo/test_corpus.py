"""The demo corpus: deterministic, well formed, and consistent with its schemas."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from factdiff import demo
from factdiff.demo import AGENTS, WORKED_EXAMPLE, DemoEntry, generate_corpus
from factdiff.extraction.recognizers import registry
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.schema.builtin import builtin_schema, builtin_schema_names
from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema
from factdiff.values.base import FactType
from factdiff.values.fieldtypes import fold

DATA = Path(demo.__file__).resolve().parent.parent / "schema" / "data"
WORKED_SOURCE = Path(__file__).resolve().parents[2] / "fixtures" / "worked_example" / "source.txt"
CORPUS_DIGEST = "sha256:2959c2c17bc908623f07522d788927ecbb3b95ffa1be1d155a3fb0dbf91c9045"
"""Digest of ``generate_corpus()``: any change to the generator must update it on purpose."""

ID_LIKE = re.compile(
    r"(?<![\w-])(?:[A-Z]{2,4}-\d+|[a-z]+_\d+|[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)+-\d+)(?![\w-])"
)
"""Tokens that look like identifiers: ``INV-9182``, ``cust_482``, ``api-gateway-3``."""
KEY_IDS = {
    "customer_service": (r"\bcust_\d+", r"\bINV-\d+"),
    "operations": (r"\bOPS-\d+",),
    "sales": (r"\bacct_\d+", r"\bOPP-\d+"),
}


@pytest.fixture(scope="module")
def corpus() -> list[DemoEntry]:
    return generate_corpus()


def _digest(entries: list[DemoEntry]) -> str:
    rows = [
        [e.agent_id, e.schema, e.occurred_at.isoformat(), e.content, list(e.tags)] for e in entries
    ]
    payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def test_same_seed_same_corpus(corpus: list[DemoEntry]) -> None:
    again = generate_corpus()
    assert again == corpus
    assert _digest(again) == _digest(corpus)
    assert generate_corpus(seed=8) != corpus


def test_corpus_digest_is_pinned(corpus: list[DemoEntry]) -> None:
    assert _digest(corpus) == CORPUS_DIGEST


@pytest.mark.parametrize(("count", "expected"), [(300, (100, 100, 100)), (10, (4, 3, 3))])
def test_counts_per_agent(count: int, expected: tuple[int, int, int]) -> None:
    counts = Counter(e.agent_id for e in generate_corpus(count=count))
    assert tuple(counts[agent] for agent, _ in AGENTS) == expected


def test_agents_use_their_schema(corpus: list[DemoEntry]) -> None:
    schemas = dict(AGENTS)
    assert all(e.schema == schemas[e.agent_id] for e in corpus)


def test_entries_are_well_formed(corpus: list[DemoEntry]) -> None:
    start = datetime(2026, 2, 2, tzinfo=UTC)
    for entry in corpus:
        assert entry.content.strip()
        assert entry.content == entry.content.strip()
        assert entry.tags
        assert entry.occurred_at.utcoffset() == timedelta(0)
        assert start - timedelta(days=1) <= entry.occurred_at < start + timedelta(days=58)
        assert 60 <= len(entry.content.split()) <= 400, entry.content
    times = [e.occurred_at for e in corpus]
    assert times == sorted(times)
    assert max(times) - min(times) > timedelta(days=45)


def test_entries_vary(corpus: list[DemoEntry]) -> None:
    assert len({e.content for e in corpus}) == len(corpus)
    openings = Counter(" ".join(e.content.split()[:2]) for e in corpus)
    assert openings.most_common(1)[0][1] < len(corpus) // 5
    assert sum("transcript" in e.tags for e in corpus) >= 10
    assert any("\nCustomer: " in e.content and "\nAgent: " in e.content for e in corpus)
    assert any("Tool log: {" in e.content for e in corpus)


def test_start_moves_the_corpus_and_summer_time_is_used() -> None:
    summer = generate_corpus(count=60, start=date(2026, 7, 6))
    assert min(e.occurred_at for e in summer) >= datetime(2026, 7, 5, tzinfo=UTC)
    text = "\n".join(e.content for e in summer)
    assert not re.search(r"\b(?:EST|CST|MST|PST|CET)\b", text)
    assert re.search(r"\b(?:EDT|CDT|MDT|PDT|CEST|BST)\b", text)


@pytest.mark.parametrize("name", ["customer_service", "operations", "sales"])
def test_schemas_load(name: str) -> None:
    schema = load_schema(DATA / f"{name}.yaml")
    assert schema.name == name
    assert schema.inventory
    assert builtin_schema(name).hash == schema.hash
    assert name in builtin_schema_names()


def _known_id(token: str, schema: FactSchema) -> bool:
    for spec in schema.fields:
        pattern = spec.compiled_pattern
        if pattern is not None and any(m.group() == token for m in pattern.finditer(token)):
            return True
        synonyms = {fold(s) for o in spec.options for s in (o.value, *o.synonyms)}
        if fold(token) in synonyms:
            return True
    return False


def test_ids_in_the_text_match_the_schema_patterns(corpus: list[DemoEntry]) -> None:
    for entry in corpus:
        schema = builtin_schema(entry.schema)
        for token in ID_LIKE.findall(entry.content):
            assert _known_id(token, schema), (token, entry.schema)
        for key in KEY_IDS[entry.schema]:
            assert re.search(key, entry.content), (key, entry.content)


def test_ops_versions_match_the_schema(corpus: list[DemoEntry]) -> None:
    versions = builtin_schema("operations").field("versions").compiled_pattern
    assert versions is not None
    for entry in corpus:
        for found in re.finditer(r"\bv\d+(?:\.\d+)+", entry.content):
            match = versions.match(entry.content, found.start())
            assert match is not None, found.group()
            assert match.span() == found.span(), found.group()


def test_every_entry_logs_a_parseable_tool_call(corpus: list[DemoEntry]) -> None:
    recognizer = registry.RECOGNIZERS[FactType.TOOL_CALL]
    for entry in corpus:
        context = ExtractionContext(reference=entry.occurred_at.date())
        assert list(recognizer.find(entry.content, context)), entry.content


def test_worked_example_is_the_fixture() -> None:
    assert WORKED_EXAMPLE.content == WORKED_SOURCE.read_text(encoding="utf-8").strip()
    assert WORKED_EXAMPLE.agent_id == "support-bot"
    assert WORKED_EXAMPLE.schema == "customer_service"
    assert WORKED_EXAMPLE.occurred_at == datetime(2026, 3, 14, 19, 32, tzinfo=UTC)
    assert WORKED_EXAMPLE not in generate_corpus()


def test_public_names() -> None:
    assert demo.__all__ == ["AGENTS", "WORKED_EXAMPLE", "DemoEntry", "generate_corpus"]
