"""Schema references by name: ``NAME`` (the latest registered version) or ``NAME@VERSION``."""

from __future__ import annotations

from factdiff.errors import InputError

__all__ = ["split_version"]


def split_version(option: str) -> tuple[str, int | None]:
    """``NAME@VERSION`` as ``(NAME, VERSION)``; a plain name as ``(name, None)``."""
    name, at, version = option.rpartition("@")
    if not at:
        return option, None
    if not name or not version.isdigit() or int(version) < 1:
        raise InputError(f"{option!r} is not NAME@VERSION with a version number from 1")
    return name, int(version)
