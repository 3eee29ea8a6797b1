"""Fakes for testing code built on factdiff: one per pipeline stage.

* ``FixedSummarizer`` returns the texts it was given, one per call (then repeats the last);
* ``FixedExtractor`` returns a prepared record for each text it knows, else delegates;
* ``ScriptedLLMServer`` is a real HTTP server on 127.0.0.1 speaking the OpenAI chat
  completions and Anthropic messages wire formats, answering from a script of ``Answer``s
  (valid output, latency, 429, 5xx, 529, dropped connections, trickles, truncation, refusal...)
  so LLM pipelines can be tested through the real SDK clients, offline;
* ``RulesOracle`` is a responder for it that answers extraction requests like the rules
  extractor would (grounded quotes) and summary requests with a function of the entry.
"""

from __future__ import annotations

from factdiff.testing.fakes import FixedExtractor, FixedSummarizer
from factdiff.testing.llm_server import Answer, RecordedRequest, ScriptedLLMServer
from factdiff.testing.oracle import RulesOracle

__all__ = [
    "Answer",
    "FixedExtractor",
    "FixedSummarizer",
    "RecordedRequest",
    "RulesOracle",
    "ScriptedLLMServer",
]
