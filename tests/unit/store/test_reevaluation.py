"""``Reevaluations``' checks, made before anything is read or written (an empty database,
collaborators that must not be called)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import pytest

from factdiff.errors import InputError
from factdiff.store.backends import open_backend
from factdiff.store.database import Database
from factdiff.store.reevaluation import (
    ReevaluationFinish,
    ReevaluationItem,
    ReevaluationResult,
    Reevaluations,
)

NOW = datetime(2026, 4, 9, tzinfo=UTC)
ITEM = ReevaluationItem(1, "e1", "a", "invoice", 1, 2, "token", NOW)


def never(*args: Any) -> NoReturn:
    raise AssertionError("no collaborator is called before the checks pass")


@pytest.fixture
def reevaluations(tmp_path: Path) -> Iterator[Reevaluations]:
    backend = open_backend(tmp_path / "empty.db")
    try:
        yield Reevaluations(
            Database(backend),
            load=never,
            event_rows=never,
            insert_events=never,
            rehydrate=never,
            index_demoted=never,
            cold_bytes=never,
            agent_dictionary=never,
            warm_params=never,
        )
    finally:
        backend.close()


def test_an_item_without_what_its_result_writes_is_refused(reevaluations: Reevaluations) -> None:
    promoted = ReevaluationFinish(ReevaluationResult.PROMOTED, None)
    with pytest.raises(InputError, match="promotion needs the entry"):
        reevaluations.finish_reevaluation(ITEM, promoted, now=NOW)
    for result in (ReevaluationResult.ANNOTATED, ReevaluationResult.CLEAN):
        with pytest.raises(InputError, match="needs the new record, meta and index"):
            reevaluations.finish_reevaluation(ITEM, ReevaluationFinish(result, None), now=NOW)
    assert reevaluations.finish_reevaluations([], now=NOW) == []


def test_claims_and_enqueues_are_checked(reevaluations: Reevaluations) -> None:
    assert reevaluations.claim_reevaluations("w", limit=0) == []
    with pytest.raises(InputError, match="lease_seconds must be positive"):
        reevaluations.claim_reevaluations("w", lease_seconds=0)
    with pytest.raises(InputError, match="newer version"):
        reevaluations.enqueue_reevaluations("invoice", [1, 2], 2, now=NOW)
    assert reevaluations.enqueue_reevaluations("invoice", [], 2, now=NOW) == 0
