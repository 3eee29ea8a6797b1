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
            "Demoter",
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


def test_public_names_load_lazily_and_match_their_modules() -> None:
    import importlib
    import subprocess
    import sys

    assert set(factdiff._SOURCES) == set(factdiff.__all__)
    for name in factdiff._SOURCES:
        module, attribute = factdiff._source(name)
        assert getattr(factdiff, name) is getattr(importlib.import_module(module), attribute)
    assert set(factdiff.__all__) <= set(dir(factdiff))
    code = "import sys, factdiff; print(sorted(m for m in sys.modules if m.startswith('factdiff')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "['factdiff', 'factdiff.wiring']"  # wiring imports nothing


def test_help_and_add_import_no_pipeline() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from factdiff.cli.main import main\n"
        "main.get_command(None, 'add')\n"
        "heavy = [m for m in ('factdiff.compression.pipeline', 'factdiff.verify.diff',"
        " 'factdiff.extraction.rules', 'factdiff.values.base', 'rich.console', 'openai',"
        " 'anthropic', 'psycopg') "
        "if m in sys.modules]\n"
        "print(heavy)\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_public_functions_are_not_shadowed_by_submodules() -> None:
    import importlib
    import subprocess
    import sys

    for module in ("factdiff.verify.check", "factdiff.verify.diff", "factdiff.extraction.rules"):
        importlib.import_module(module)
    assert factdiff.check.__module__ == "factdiff.verify.check"
    assert factdiff.diff.__module__ == "factdiff.verify.diff"
    assert factdiff.extract.__module__ == "factdiff.verify.check"
    code = (
        "import factdiff.extraction.rules, factdiff.verify.check, factdiff.verify.diff, factdiff\n"
        "print(all(callable(f) for f in (factdiff.check, factdiff.diff, factdiff.extract)))\n"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert fresh.strip() == "True"
