"""The public API is pinned: additions are deliberate, removals are breaking."""

from __future__ import annotations

import factdiff
import factdiff.testing


def test_public_names_are_pinned() -> None:
    assert sorted(factdiff.__all__) == sorted(
        [
            "CheckResult",
            "CompressionResult",
            "Criticality",
            "Extractor",
            "ExtractiveSummarizer",
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
    )
    for name in factdiff.__all__:
        assert hasattr(factdiff, name), name
    assert sorted(factdiff.testing.__all__) == [
        "Answer",
        "FixedExtractor",
        "FixedSummarizer",
        "RecordedRequest",
        "RulesOracle",
        "ScriptedLLMServer",
    ]
