"""Shared fixtures: the worked example and the customer_service schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema
from tests.local_llm import LocalLLM, local_server

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
WORKED = FIXTURES / "worked_example"


@pytest.fixture(scope="session")
def customer_service() -> FactSchema:
    return load_schema(ROOT / "schemas" / "customer_service.yaml")


def worked(name: str) -> str:
    """One text of the worked example (source, fluent, faithful, changed, invented)."""
    return (WORKED / f"{name}.txt").read_text(encoding="utf-8").strip()


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLM]:
    """The local model server (``tests/local_llm.py``): skips until ``make local-llm`` ran,
    fails instead under ``FACTDIFF_REQUIRE_LOCAL_LLM=1``."""
    with local_server(tmp_path_factory.mktemp("local-llm")) as server:
        yield server
