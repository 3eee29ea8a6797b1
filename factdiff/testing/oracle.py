"""A model that answers like the rules extractor: grounded extraction answers for any entry.

``RulesOracle`` is a ``ScriptedLLMServer`` responder. For a structured request (an LLM
extractor's, whatever its structured-output form) it finds the entry between the prompt's
``<entry-NONCE>`` tags, extracts it with the rules extractor and answers the JSON an honest
model would give: every value with its verbatim quote. For a plain request (a summarizer's)
it answers ``summary(entry)`` (the entry itself by default). So LLM pipelines can be tested
end to end, both wire formats, with answers that always pass grounding::

    oracle = RulesOracle(schema, summary=lambda text: text[:400])
    with ScriptedLLMServer(responder=oracle) as server:
        ...
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from factdiff.extraction.record import Fact, FactRecord
from factdiff.extraction.rules import DEFAULT_EXTRACTOR
from factdiff.providers.structured import JSON_INSTRUCTION
from factdiff.schema.model import FactSchema, FieldSpec
from factdiff.testing.llm_server import Answer, RecordedRequest
from factdiff.values.base import JSON, FactType

__all__ = ["RulesOracle", "entry_text", "extraction_answer"]

_FRAMED = re.compile(r"<entry-([0-9a-f]+)>\n(.*)\n</entry-\1>", re.S)
_REFERENCE = re.compile(r"Reference date: (\d{4}-\d{2}-\d{2})")


def entry_text(request: RecordedRequest) -> str:
    """The entry framed in the request's last user message ('' when there is none)."""
    found = _FRAMED.search(request.last_user_message)
    return found.group(2) if found else ""


def _json_value(fact: Fact, spec: FieldSpec) -> JSON:
    canonical = fact.value.canonical()
    if spec.type in (FactType.MONEY, FactType.QUANTITY) and isinstance(canonical, str):
        amount, _, unit = canonical.partition(" ")
        return {"amount": amount, "currency" if spec.type is FactType.MONEY else "unit": unit}
    if spec.type in (FactType.NUMBER, FactType.PERCENT):
        return str(canonical).rstrip("%")
    if spec.type is FactType.BOOLEAN:
        return bool(canonical)
    if spec.type is FactType.TOOL_CALL:
        return {"name": "", "arguments": [], "result": ""}  # read back from the quote
    if spec.type is FactType.ENUM:
        return canonical
    return fact.text


def extraction_answer(record: FactRecord, schema: FactSchema) -> dict[str, JSON]:
    """The answer that states exactly ``record``'s field values, each with its quote."""
    answer: dict[str, JSON] = {}
    for spec in schema.fields:
        items = [{"value": _json_value(f, spec), "quote": f.text} for f in record.fields[spec.name]]
        answer[spec.name] = items if spec.many else (items[0] if items else None)
    return answer


class RulesOracle:
    """A responder: rules-grounded extraction answers, ``summary(entry)`` for summaries."""

    def __init__(
        self,
        schema: FactSchema,
        summary: Callable[[str], str] | None = None,
        *,
        delay_s: float = 0.0,
    ) -> None:
        self.schema = schema
        self.summary = summary or (lambda text: text)
        self.delay_s = delay_s
        self._answers: dict[str, dict[str, JSON]] = {}

    def answer_for(self, text: str, reference: date | None = None) -> dict[str, JSON]:
        """The extraction answer for ``text`` (computed once per text and reference)."""
        key = f"{reference}:{text}"
        found = self._answers.get(key)
        if found is None:
            record = DEFAULT_EXTRACTOR.extract(text, self.schema, reference)
            found = self._answers[key] = extraction_answer(record, self.schema)
        return found

    def __call__(self, request: RecordedRequest) -> Answer:
        text = entry_text(request)
        if request.structured or JSON_INSTRUCTION in request.prompt:
            stated = _REFERENCE.search(request.last_user_message)
            reference = date.fromisoformat(stated.group(1)) if stated else None
            return Answer.json(self.answer_for(text, reference), delay_s=self.delay_s)
        return Answer.text(self.summary(text), delay_s=self.delay_s)
