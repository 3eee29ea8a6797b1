"""factdiff: agent memory compression without truth loss.

::

    entry (hot) --dormant--> Demoter --> compress()
      compress(): extract(source) -> summarize -> extract(summary) -> diff -> decide
    decide -> clean / acceptable  => warm narrative + source fact record, source archived cold
              failed              => stays hot + compression_failure event + stricter retry

Library use::

    from factdiff import Memory
    with Memory("memory.db", agent="support-bot", schema="customer_service") as memory:
        memory.add("Refund of $1,249.00 for order 88213 approved on 2026-03-14.")
        memory.search("order 88213")     # hits with their facts and known gaps
        memory.demote()                  # verified compression of dormant entries

    from factdiff import load_schema, check
    schema = load_schema("schemas/customer_service.yaml")
    result = check(source_text, summary_text, schema)
    result.outcome            # Outcome.CLEAN / ACCEPTABLE_WITH_NOTES / FAILED
    result.diff.missing       # facts the summary lost, with criticality and evidence

    from factdiff import Demoter, open_store
    with open_store("memory.db") as store:           # or "postgresql://host/db"
        Demoter(store).run(now)                        # demote dormant hot entries

``open_store`` is the one way to open a store; ``Store`` is the store's class
(``factdiff.store.MemoryStore``), and ``Store.open`` is kept as the same opening.

Names are imported on first use (PEP 562), so ``import factdiff`` and the command line start
fast; ``from factdiff import check`` works as usual.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

from factdiff import wiring as _wiring

if TYPE_CHECKING:
    from factdiff.compression.pipeline import CompressionResult, Rung, compress
    from factdiff.demotion.demoter import Demoter
    from factdiff.demotion.worker import Worker
    from factdiff.errors import (
        FactdiffError,
        InputError,
        RuntimeFailure,
        SchemaError,
        StoreError,
        UsageError,
    )
    from factdiff.extraction.base import Extractor
    from factdiff.extraction.record import Fact, FactRecord
    from factdiff.extraction.rules import RulesExtractor
    from factdiff.memory import Memory
    from factdiff.schema.builtin import builtin_schema, generic_schema
    from factdiff.schema.loader import load_schema, schema_from_dict, schema_from_yaml
    from factdiff.schema.model import Criticality, FactSchema, FieldSpec
    from factdiff.store.base import MemoryStore as Store
    from factdiff.store.factory import open_store
    from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, Summarizer
    from factdiff.values.base import FactType
    from factdiff.verify.check import CheckResult, check, extract
    from factdiff.verify.diff import FactDiff, Finding, Verdict, diff
    from factdiff.verify.policy import Outcome, Policy

_SOURCES: dict[str, str] = {
    "CheckResult": "factdiff.verify.check",
    "check": "factdiff.verify.check",
    "extract": "factdiff.verify.check",
    "Demoter": "factdiff.demotion.demoter",
    "FactDiff": "factdiff.verify.diff",
    "Finding": "factdiff.verify.diff",
    "Verdict": "factdiff.verify.diff",
    "diff": "factdiff.verify.diff",
    "FactdiffError": "factdiff.errors",
    "InputError": "factdiff.errors",
    "RuntimeFailure": "factdiff.errors",
    "SchemaError": "factdiff.errors",
    "StoreError": "factdiff.errors",
    "UsageError": "factdiff.errors",
    "Extractor": "factdiff.extraction.base",
    "RulesExtractor": "factdiff.extraction.rules",
    "Memory": "factdiff.memory",
    "CompressionResult": "factdiff.compression.pipeline",
    "Rung": "factdiff.compression.pipeline",
    "compress": "factdiff.compression.pipeline",
    "Outcome": "factdiff.verify.policy",
    "Policy": "factdiff.verify.policy",
    "Fact": "factdiff.extraction.record",
    "FactRecord": "factdiff.extraction.record",
    "builtin_schema": "factdiff.schema.builtin",
    "generic_schema": "factdiff.schema.builtin",
    "load_schema": "factdiff.schema.loader",
    "schema_from_dict": "factdiff.schema.loader",
    "schema_from_yaml": "factdiff.schema.loader",
    "Criticality": "factdiff.schema.model",
    "FactSchema": "factdiff.schema.model",
    "FieldSpec": "factdiff.schema.model",
    "Store": "factdiff.store.base:MemoryStore",
    "ExtractiveSummarizer": "factdiff.summarize",
    "NaiveSummarizer": "factdiff.summarize",
    "Summarizer": "factdiff.summarize",
    "FactType": "factdiff.values.base",
    "Worker": "factdiff.demotion.worker",
    "open_store": "factdiff.store.factory",
}
"""Public name -> the module that defines it (``module:attribute`` where the names differ)."""

logging.getLogger("factdiff").addHandler(logging.NullHandler())  # the application decides

__all__ = [
    "CheckResult",
    "CompressionResult",
    "Criticality",
    "Demoter",
    "ExtractiveSummarizer",
    "Extractor",
    "Fact",
    "FactDiff",
    "FactRecord",
    "FactSchema",
    "FactType",
    "FactdiffError",
    "FieldSpec",
    "Finding",
    "InputError",
    "Memory",
    "NaiveSummarizer",
    "Outcome",
    "Policy",
    "RulesExtractor",
    "Rung",
    "RuntimeFailure",
    "SchemaError",
    "Store",
    "StoreError",
    "Summarizer",
    "UsageError",
    "Verdict",
    "Worker",
    "builtin_schema",
    "check",
    "compress",
    "diff",
    "extract",
    "generic_schema",
    "load_schema",
    "open_store",
    "schema_from_dict",
    "schema_from_yaml",
]


def _source(name: str) -> tuple[str, str]:
    """The module and attribute behind the public ``name``."""
    module, _, attribute = _SOURCES[name].partition(":")
    return module, attribute or name


def __getattr__(name: str) -> object:
    if name not in _SOURCES:
        raise AttributeError(f"module 'factdiff' has no attribute {name!r}")
    module, attribute = _source(name)
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _store_services() -> object:
    """The store's default services: the rules indexer and retrieval (``factdiff.wiring``)."""
    from factdiff.retrieve.services import rules_services

    return rules_services()


_wiring.store_services = _store_services
