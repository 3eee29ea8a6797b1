"""The LLM extractor: a model fills the schema's JSON Schema, every value with its quote.

1. One call, temperature 0, output constrained to ``json_schema(schema)`` (OpenAI structured
   outputs with ``strict``; Anthropic a forced tool with that ``input_schema``).
2. The answer is read strictly (one JSON document, no duplicate keys, no NaN), validated
   against the JSON Schema, and every value is checked:
   * **grounded**: its quote occurs in the text (exactly, or up to case and whitespace);
   * **typed**: it parses as the field's type (``parse_value``; enums through the options);
   * **consistent**: an identifier must be written in its quote as given; for exact types
     (money, numbers, contacts, dates) a quote that itself parses as the type must state the
     same value.
3. Any problem: one re-ask, showing the model its answer and the list of problems. Still
   wrong: ``InvalidJSON`` or ``SchemaViolation``. Truncation and refusal are never re-asked.

The record's spans are every occurrence of each value's quote. The LLM extractor fills schema
fields only; the inventory comes from the rules extractor (see ``JuryExtractor``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from factdiff.errors import InvalidJSON, InvalidOutput, SchemaViolation
from factdiff.extraction.recognizers import registry
from factdiff.extraction.recognizers.base import ExtractionContext
from factdiff.extraction.record import Fact, FactRecord, Span
from factdiff.extraction.rules import infer_reference
from factdiff.inputs.json_toml import JSON, json_array, json_object
from factdiff.providers import runtime
from factdiff.providers.base import CallPolicy, ChatRequest, Message, ModelParams
from factdiff.providers.client import LLMClient
from factdiff.providers.jsonout import OutputError, loads_strict, validate
from factdiff.providers.prices import PriceTable
from factdiff.providers.spec import ModelSpec
from factdiff.providers.untrusted import frame_for
from factdiff.schema.export import json_schema
from factdiff.schema.model import FactSchema, FieldSpec
from factdiff.values.base import FactType, Value
from factdiff.values.fieldtypes import EnumValue, fold

__all__ = ["PROMPT_VERSION", "LLMExtractor", "record_from_output"]

PROMPT_VERSION = "llm-extract/2"
MAX_SPANS = 20
_EXACT_TYPES = frozenset(
    {
        FactType.MONEY,
        FactType.NUMBER,
        FactType.PERCENT,
        FactType.EMAIL,
        FactType.PHONE,
        FactType.DATE,
    }
)

SYSTEM_PROMPT = """\
You extract facts from a text into one JSON object that follows the given JSON Schema exactly.
Rules:
- State only what the text states. A field the text does not state is null (a list field: []).
- Every value carries "quote": a verbatim excerpt of the text it was read from, copied
  character for character (short: the words that state the value).
- Money: "amount" as digits with an optional "." decimal part, "currency" as an ISO code.
- Dates: YYYY-MM-DD; datetimes: ISO 8601 with the offset; resolve relative dates against
  the reference date given.
- Identifiers exactly as written. Numbers and percents as plain decimals.
- Answer with the JSON object only."""
DEFAULT_MAX_TOKENS = 4096


@dataclass(frozen=True)
class _Checked:
    record: FactRecord | None
    problems: tuple[str, ...]
    json_error: bool = False


class LLMExtractor:
    """Extracts a schema's fields with a model (``openai:...``, ``anthropic:...``)."""

    def __init__(
        self,
        model: str | ModelSpec | LLMClient,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        reask: bool = True,
        policy: CallPolicy | None = None,
        prices: PriceTable | None = None,
        params: ModelParams | None = None,
    ) -> None:
        if isinstance(model, LLMClient):
            self.client = model
        else:
            self.client = LLMClient(model, policy=policy, prices=prices, params=params)
        self.max_tokens = max_tokens
        self.reask = reask
        self.identity = f"{self.client.name}/{PROMPT_VERSION}"

    @property
    def model(self) -> str:
        """``provider:model``."""
        return self.client.name

    def extract(self, text: str, schema: FactSchema, reference: date | None = None) -> FactRecord:
        """The fact record of ``text`` (blocks; see ``aextract`` for asyncio code)."""
        return runtime.run(self._extract(text, schema, reference))

    async def aextract(
        self, text: str, schema: FactSchema, reference: date | None = None
    ) -> FactRecord:
        """The fact record of ``text``, from any event loop."""
        return await runtime.run_async(self._extract(text, schema, reference))

    def request(self, text: str, schema: FactSchema, reference: date | None) -> ChatRequest:
        """The first request for ``text`` (exposed for tests and prompt inspection): the text
        framed as untrusted data with a fresh nonce (``factdiff.providers.untrusted``)."""
        frame = frame_for(text)
        fields = "\n".join(
            f"- {s.name} ({s.type.value}{', a list' if s.many else ''}"
            + (f", one of: {', '.join(o.value for o in s.options)}" if s.options else "")
            + f"): {s.description or s.criticality.value}"
            for s in schema.fields
        )
        user = (
            f"Schema '{schema.name}' v{schema.version}: {schema.description}\n"
            f"Fields:\n{fields}\n"
            f"Reference date: {reference.isoformat() if reference else 'unknown'}\n\n"
            f"Entry:\n{frame.wrap(text)}"
        )
        return ChatRequest(
            system=f"{SYSTEM_PROMPT}\n{frame.rule()}",
            messages=(Message("user", user),),
            max_tokens=self.max_tokens,
            temperature=0.0,
            output_schema=json_schema(schema),
            schema_name="record_facts",
        )

    async def _extract(self, text: str, schema: FactSchema, reference: date | None) -> FactRecord:
        context = ExtractionContext(
            reference=reference if reference is not None else infer_reference(text),
            decimal_comma=registry.detect_decimal_comma(text),
        )
        request = self.request(text, schema, context.reference)
        http_calls = 0
        for round_ in (1, 2):
            try:
                result = await self.client.acomplete(request)
            except InvalidOutput as exc:  # e.g. Anthropic tool input with duplicate keys
                http_calls += exc.http_calls
                checked = _Checked(None, (str(exc),), json_error=isinstance(exc, InvalidJSON))
                answer = ""
            else:
                http_calls += result.http_calls
                checked = _check(result.text, text, schema, context, self.identity)
                answer = result.text
            if checked.record is not None:
                return checked.record
            if round_ == 2 or not self.reask:
                break
            request = _reask(request, answer, checked.problems)
        error = InvalidJSON if checked.json_error else SchemaViolation
        raise error(
            "extraction output still invalid after one re-ask: " + "; ".join(checked.problems[:5]),
            model=self.client.name,
            http_calls=http_calls,
        )


def _reask(request: ChatRequest, answer: str, problems: tuple[str, ...]) -> ChatRequest:
    listed = "\n".join(f"- {p}" for p in problems[:20])
    messages = list(request.messages)
    if answer:
        messages.append(Message("assistant", answer))
    messages.append(
        Message(
            "user",
            "Your answer was rejected:\n"
            f"{listed}\n"
            "Answer again with the corrected JSON object only. Quotes must be copied verbatim "
            "from the text; leave out any value the text does not state.",
        )
    )
    return ChatRequest(
        system=request.system,
        messages=tuple(messages),
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        output_schema=request.output_schema,
        schema_name=request.schema_name,
    )


def _check(
    answer: str, text: str, schema: FactSchema, context: ExtractionContext, identity: str
) -> _Checked:
    try:
        data = loads_strict(answer)
    except OutputError as exc:
        return _Checked(None, (f"not valid JSON: {exc}",), json_error=True)
    problems = validate(data, json_schema(schema))
    if problems or not isinstance(data, Mapping):  # the schema asks for an object
        return _Checked(None, tuple(problems))
    record, problems = record_from_output(data, text, schema, context, identity)
    return _Checked(None if problems else record, tuple(problems))


def record_from_output(
    data: Mapping[str, JSON],
    text: str,
    schema: FactSchema,
    context: ExtractionContext,
    identity: str = PROMPT_VERSION,
) -> tuple[FactRecord, list[str]]:
    """The record of a schema-valid model answer, and the problems with its values."""
    problems: list[str] = []
    fields: dict[str, tuple[Fact, ...]] = {}
    for spec in schema.fields:
        raw = data.get(spec.name)
        items = raw if isinstance(raw, list) else ([] if raw is None else [raw])
        facts: dict[object, Fact] = {}
        for index, item in enumerate(items):
            where = f"{spec.name}[{index}]" if spec.many else spec.name
            fact, problem = _fact(json_object(item), text, spec, context)
            if problem is not None:
                problems.append(f"{where}: {problem}")
            elif fact is not None and fact.value.key() not in facts:
                facts[fact.value.key()] = fact
        fields[spec.name] = tuple(facts.values())
    record = FactRecord(
        schema=schema.ref,
        fields=fields,
        inventory={},
        reference=context.reference,
        extractor=identity,
    )
    return record, problems


def _fact(
    item: Mapping[str, JSON], text: str, spec: FieldSpec, context: ExtractionContext
) -> tuple[Fact | None, str | None]:
    quote = str(item.get("quote", ""))
    spans = locate(text, quote)
    if not spans:
        return None, f"quote {quote[:80]!r} is not in the text (copy it verbatim)"
    value = _value(spec, item.get("value"), quote, context)
    if value is None:
        return None, f"value {item.get('value')!r} is not a valid {spec.type.value}"
    if spec.type is FactType.IDENTIFIER and str(item.get("value")) not in quote:
        return None, f"identifier {item.get('value')!r} is not written in its quote {quote[:80]!r}"
    if spec.type in _EXACT_TYPES:
        quoted = registry.parse_value(spec.type, quote, context)
        if quoted is not None and not quoted.same_as(value, spec.tolerance):
            return None, (
                f"value {value.canonical()!r} differs from its quote {quote[:80]!r} "
                f"({quoted.canonical()!r})"
            )
    start, end = spans[0]
    return Fact(value, tuple(spans), text[start:end]), None


def _value(spec: FieldSpec, raw: JSON, quote: str, context: ExtractionContext) -> Value | None:
    kind = spec.type
    if kind is FactType.ENUM:
        folded = fold(str(raw))
        for option in spec.options:
            if folded == fold(option.value) or folded in {fold(s) for s in option.synonyms}:
                return EnumValue(option.value)
        return None
    if kind is FactType.TOOL_CALL:
        parsed = registry.parse_value(kind, quote, context)
        if parsed is not None:
            return parsed
        return registry.parse_value(kind, _tool_call_json(raw), context)
    if isinstance(raw, dict) and kind is FactType.MONEY:
        raw = f"{raw.get('amount', '')} {raw.get('currency', '')}"
    elif isinstance(raw, dict) and kind is FactType.QUANTITY:
        raw = f"{raw.get('amount', '')} {raw.get('unit', '')}"
    elif isinstance(raw, bool):
        raw = "true" if raw else "false"
    elif kind is FactType.PERCENT and isinstance(raw, str) and not raw.endswith("%"):
        raw = f"{raw}%"
    if not isinstance(raw, str) or not raw.strip():
        return None
    return registry.parse_value(kind, raw, context)


def _tool_call_json(raw: JSON) -> str:
    if not isinstance(raw, dict):
        return ""
    arguments: dict[str, JSON] = {}
    for argument in json_array(raw.get("arguments", []) or []):
        if isinstance(argument, dict) and "name" in argument:
            value = argument.get("value")
            try:
                arguments[str(argument["name"])] = loads_strict(str(value))
            except OutputError:
                arguments[str(argument["name"])] = value
    return json.dumps(
        {"name": raw.get("name", ""), "arguments": arguments, "result": raw.get("result", "")}
    )


def locate(text: str, quote: str) -> list[Span]:
    """Every span of ``quote`` in ``text``: exact first, else up to case and whitespace."""
    quote = quote.strip()
    if not quote:
        return []
    spans: list[Span] = []
    start = text.find(quote)
    while start >= 0 and len(spans) < MAX_SPANS:
        spans.append((start, start + len(quote)))
        start = text.find(quote, start + 1)
    if spans:
        return spans
    pattern = r"\s+".join(re.escape(token) for token in quote.split())
    for found in re.finditer(pattern, text, re.IGNORECASE):
        spans.append(found.span())
        if len(spans) >= MAX_SPANS:
            break
    return spans
