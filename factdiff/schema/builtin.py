"""Schemas that ship with factdiff."""

from __future__ import annotations

from functools import cache
from importlib import resources

from factdiff.schema.loader import schema_from_yaml
from factdiff.schema.model import Criticality, FactSchema
from factdiff.values.base import FactType

GENERIC_INVENTORY: dict[FactType, Criticality] = {
    FactType.IDENTIFIER: Criticality.CRITICAL,
    FactType.MONEY: Criticality.CRITICAL,
    FactType.DATE: Criticality.CRITICAL,
    FactType.DATETIME: Criticality.CRITICAL,
    FactType.TIME: Criticality.IMPORTANT,
    FactType.PHONE: Criticality.IMPORTANT,
    FactType.EMAIL: Criticality.IMPORTANT,
    FactType.PERCENT: Criticality.IMPORTANT,
    FactType.QUANTITY: Criticality.IMPORTANT,
    FactType.DURATION: Criticality.IMPORTANT,
    FactType.URL: Criticality.CONTEXTUAL,
    FactType.DECISION: Criticality.IMPORTANT,
    FactType.PERSON: Criticality.IMPORTANT,
    FactType.ORGANIZATION: Criticality.IMPORTANT,
}


@cache
def generic_schema() -> FactSchema:
    """The schema used without ``--schema``: no fields, every inventory type tracked."""
    return FactSchema.build(
        name="generic",
        version=1,
        description=(
            "Schema-free typed atoms (identifiers, money, dates, contacts, people,"
            " organisations, decisions...) only."
        ),
        inventory=GENERIC_INVENTORY,
    )


def builtin_schema_names() -> list[str]:
    """Names of the YAML schemas shipped in the package (``customer_service``...)."""
    folder = resources.files("factdiff.schema") / "data"
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def builtin_schema_source(name: str) -> str | None:
    """The YAML text of a shipped schema (None for the Python-built ``generic``)."""
    resource = resources.files("factdiff.schema") / "data" / f"{name}.yaml"
    return resource.read_text(encoding="utf-8") if resource.is_file() else None


@cache
def builtin_schema(name: str) -> FactSchema:
    """A shipped schema by name; ``generic`` is the inventory-only default."""
    if name == "generic":
        return generic_schema()
    source = builtin_schema_source(name)
    if source is None:
        known = ", ".join(["generic", *builtin_schema_names()])
        raise KeyError(f"no built-in schema {name!r}; known: {known}")
    return schema_from_yaml(source, f"<builtin>/{name}.yaml")
