"""Schemathesis against the OpenAPI document over real HTTP: no 5xx, and every response
matches its documented schema (a bounded number of examples per operation)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from factdiff.store import open_store
from tests.conftest import worked
from tests.integration.service_helpers import make_keys, running_api

KEY: dict[str, str] = {}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
"""No 5xx; status, content type and body as documented."""


@pytest.fixture
def api_schema(tmp_path: Path) -> Iterator[BaseSchema]:
    """The API's OpenAPI document, served on a fresh SQLite store with a few entries."""
    target = str(tmp_path / "memory.db")
    KEY["operator"] = make_keys(target).operator
    with open_store(target) as store:
        store.add("alice", worked("source"), now=datetime.now(UTC), tags=("call",))
    with running_api(target, max_body_bytes=256 * 1024) as base:
        loaded = schemathesis.openapi.from_url(f"{base}/openapi.json")
        loaded.config.phases.update(phases=["examples", "fuzzing"])
        yield loaded.exclude(path="/v1/events/stream")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_conforms_to_its_document(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {KEY['operator']}"}, checks=CHECKS)
