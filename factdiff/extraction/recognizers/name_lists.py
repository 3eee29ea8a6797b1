"""The gazetteer's given-name and family-name lists (folded, shipped as package data; see
``scripts/build_name_gazetteer.py``)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def _names(file: str) -> frozenset[str]:
    resource = resources.files("factdiff.extraction") / "data" / file
    lines = resource.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def given_names() -> frozenset[str]:
    """Folded given names of the gazetteer."""
    return _names("given_names.txt")


def family_names() -> frozenset[str]:
    """Folded family names of the gazetteer."""
    return _names("family_names.txt")


@cache
def known_names() -> frozenset[str]:
    """Folded given and family names of the gazetteer."""
    return given_names() | family_names()
