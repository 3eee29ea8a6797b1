"""The demo: a deterministic corpus of realistic agent memory entries for ``factdiff demo``."""

from __future__ import annotations

from factdiff.demo.corpus import AGENTS, WORKED_EXAMPLE, DemoEntry, generate_corpus

__all__ = ["AGENTS", "WORKED_EXAMPLE", "DemoEntry", "generate_corpus"]
