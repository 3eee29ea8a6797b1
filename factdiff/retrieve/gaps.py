"""Known gaps: the facts a warm entry's narrative lost at compression, as retrieval shows them.

Compression records them in the typed warm meta (``WarmMeta.known_gaps``: field,
criticality, fact type). Warm entries written before the gaps were typed carry only their
field names; ``known_gaps`` completes their fact type from the entry's schema, so every
reader sees typed gaps.
"""

from __future__ import annotations

from dataclasses import replace

from factdiff.schema.model import FactSchema
from factdiff.store.model import KnownGap, WarmMeta
from factdiff.values.base import FactType

__all__ = ["INVENTORY_PREFIX", "KnownGap", "gap_words", "known_gaps"]

INVENTORY_PREFIX = "inventory."


def known_gaps(meta: WarmMeta, schema: FactSchema | None) -> tuple[KnownGap, ...]:
    """The known gaps of a warm entry, each lost field once, in the order compression
    recorded them; an untyped gap (older meta) takes its type from ``schema``."""
    gaps: dict[str, KnownGap] = {}
    for gap in meta.known_gaps:
        if gap.field not in gaps:
            gaps[gap.field] = gap if gap.fact_type is not None else _typed(gap, schema)
    return tuple(gaps.values())


def gap_words(gap: KnownGap) -> tuple[str, ...]:
    """The words that name the gap's field in a question (``call_time`` -> call, time)."""
    name = gap.field.removeprefix(INVENTORY_PREFIX)
    return tuple(part for part in name.casefold().replace("-", "_").split("_") if part)


def _typed(gap: KnownGap, schema: FactSchema | None) -> KnownGap:
    if gap.field.startswith(INVENTORY_PREFIX):
        try:
            return replace(gap, fact_type=FactType(gap.field.removeprefix(INVENTORY_PREFIX)))
        except ValueError:
            return gap
    if schema is None:
        return gap
    try:
        return replace(gap, fact_type=schema.field(gap.field).type)
    except KeyError:
        return gap
