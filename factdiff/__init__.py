"""factdiff: agent memory compression without truth loss.

::

    entry (hot) --dormant--> Demoter --> compress()
      compress(): extract(source) -> summarize -> extract(summary) -> diff -> decide
    decide -> clean / acceptable  => warm narrative + source fact record, source archived cold
              failed              => stays hot + compression_failure event + stricter retry

Library use::

    from factdiff import load_schema, check
    schema = load_schema("schemas/customer_service.yaml")
    result = check(source_text, summary_text, schema)
    result.outcome            # Outcome.CLEAN / ACCEPTABLE_WITH_NOTES / FAILED
    result.diff.missing       # facts the summary lost, with criticality and evidence
"""

import logging

from factdiff.check import CheckResult, check, extract
from factdiff.diff import FactDiff, Finding, Verdict, diff
from factdiff.errors import (
    FactdiffError,
    InputError,
    RuntimeFailure,
    SchemaError,
    StoreError,
    UsageError,
)
from factdiff.extract.base import Extractor
from factdiff.extract.rules import RulesExtractor
from factdiff.pipeline import CompressionResult, Rung, compress
from factdiff.policy import Outcome, Policy
from factdiff.record import Fact, FactRecord
from factdiff.schema.builtin import builtin_schema, generic_schema
from factdiff.schema.loader import load_schema, schema_from_dict, schema_from_yaml
from factdiff.schema.model import Criticality, FactSchema, FieldSpec
from factdiff.summarize import ExtractiveSummarizer, NaiveSummarizer, Summarizer
from factdiff.values.base import FactType

logging.getLogger("factdiff").addHandler(logging.NullHandler())  # the application decides

__all__ = [
    "CheckResult",
    "CompressionResult",
    "Criticality",
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
    "NaiveSummarizer",
    "Outcome",
    "Policy",
    "RulesExtractor",
    "Rung",
    "RuntimeFailure",
    "SchemaError",
    "StoreError",
    "Summarizer",
    "UsageError",
    "Verdict",
    "builtin_schema",
    "check",
    "compress",
    "diff",
    "extract",
    "generic_schema",
    "load_schema",
    "schema_from_dict",
    "schema_from_yaml",
]
