"""Shared fixtures: the worked example and the customer_service schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.schema.loader import load_schema
from factdiff.schema.model import FactSchema

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
WORKED = FIXTURES / "worked_example"


@pytest.fixture(scope="session")
def customer_service() -> FactSchema:
    return load_schema(ROOT / "schemas" / "customer_service.yaml")


def worked(name: str) -> str:
    """One text of the worked example (source, fluent, faithful, changed, invented)."""
    return (WORKED / f"{name}.txt").read_text(encoding="utf-8").strip()
