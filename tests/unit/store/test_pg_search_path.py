"""The schema names of a PostgreSQL ``search_path``, as the server resolves them."""

from __future__ import annotations

import pytest

pytest.importorskip("psycopg")

from factdiff.store.backends.pg_schema import search_path_schemas


@pytest.mark.parametrize(
    ("setting", "names"),
    [
        ("factdiff", ["factdiff"]),
        ("FactDiff, public", ["factdiff", "public"]),
        ('"$user", public', ["public"]),
        ("$user", []),
        ('"Mixed Case", "with ""quote""", "a,b"', ["Mixed Case", 'with "quote"', "a,b"]),
        ("", []),
        (" , tenant_1 ", ["tenant_1"]),
    ],
)
def test_search_path_schemas(setting: str, names: list[str]) -> None:
    assert search_path_schemas(setting) == names
