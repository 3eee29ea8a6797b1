"""The one schema-name rule: the same for a schema file's ``schema:`` and for every name an
entry point is given (``NAME`` or ``NAME@VERSION``)."""

from __future__ import annotations

import pytest

from factdiff.errors import InputError, SchemaError
from factdiff.schema.loader import schema_from_dict
from factdiff.schema.names import BadSchemaName, check_name, check_reference, split_version


@pytest.mark.parametrize("name", ["/etc/passwd", "../..", "", "a-b", "9x", "x" * 101, "é"])
def test_malformed_names_are_refused_everywhere(name: str) -> None:
    with pytest.raises(BadSchemaName, match=r"must be a letter or _ then letters, digits or _"):
        check_name(name)
    with pytest.raises(InputError):
        split_version(f"{name}@2")
    with pytest.raises(SchemaError, match=r"must be a letter or _ then letters, digits or _"):
        schema_from_dict({"schema": name, "version": 1, "fields": {}})


def test_references_keep_their_version() -> None:
    assert check_reference("sales@12") == "sales@12"
    assert split_version("_a1") == ("_a1", None)
    for bad in ("sales@" + "9" * 5000, "sales@²", "sales@-1"):
        with pytest.raises(InputError, match="NAME@VERSION"):
            check_reference(bad)
