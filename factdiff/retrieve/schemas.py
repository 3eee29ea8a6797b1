"""Which schema an entry is indexed and read with (``factdiff.store.schema_resolver``)."""

from factdiff.store.schema_resolver import GENERIC, SchemaResolver

__all__ = ["GENERIC", "SchemaResolver"]
