"""The schema catalog: built-ins register themselves; stored schemas come back as written."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from factdiff.errors import UsageError
from factdiff.schema.builtin import builtin_schema
from factdiff.store import EventType, open_store
from factdiff.store.catalog import SchemaCatalog

NOW = datetime(2026, 3, 14, tzinfo=UTC)


def test_builtin_schema_registers_once_and_keeps_field_order(tmp_path: Path) -> None:
    with open_store(tmp_path / "c.db") as store:
        first = SchemaCatalog(store).get("customer_service", NOW)
        again = SchemaCatalog(store).get("customer_service", NOW)  # a fresh catalog: from the store
        assert again == first == builtin_schema("customer_service")
        assert [f.name for f in again.fields][:3] == ["customer_id", "company_name", "invoice_id"]
        assert len(list(store.events(type=EventType.SCHEMA_REGISTERED))) == 1


def test_agent_and_tag_assignment(tmp_path: Path) -> None:
    with open_store(tmp_path / "c.db") as store:
        catalog = SchemaCatalog(store)
        catalog.get("sales", NOW)
        store.set_agent_schema("bot", "customer_service")
        store.set_agent_schema("bot", "sales", "crm")
        plain = store.add("bot", "note", now=NOW)
        tagged = store.add("bot", "note", now=NOW, tags=("crm",))
        assert catalog.name_for(store.get(plain)) == "customer_service"
        assert catalog.name_for(store.get(tagged)) == "sales"
        assert catalog.name_for(store.get(store.add("other", "x", now=NOW))) == "generic"


def test_unknown_schema_says_how_to_register(tmp_path: Path) -> None:
    with (
        open_store(tmp_path / "c.db") as store,
        pytest.raises(UsageError, match="factdiff schema register"),
    ):
        SchemaCatalog(store).get("nope", NOW)
