"""The LLM summarizer: a narrative within a word budget that keeps the schema's facts.

The prompt carries the word budget, the schema's ``summary_constraints()`` and, on a stricter
rung (``request.must_keep`` non-empty), the exact facts the last diff lost, each named with
its field and its value as the source states it. The entry itself is framed as untrusted data
with a per-call nonce (``factdiff.providers.untrusted``). The answer is plain text; truncation
and refusal are typed failures, never a summary.
"""

from __future__ import annotations

from factdiff.errors import InvalidOutput, UsageError
from factdiff.extraction.record import Fact
from factdiff.providers import runtime
from factdiff.providers.base import CallPolicy, ChatRequest, Message, ModelParams
from factdiff.providers.client import LLMClient, cost_str
from factdiff.providers.prices import PriceTable
from factdiff.providers.spec import ModelSpec
from factdiff.providers.untrusted import Frame, frame_for
from factdiff.schema.export import summary_constraints
from factdiff.summarize.base import Summary, SummaryRequest, facts_by_criticality, validate_request

__all__ = ["PROMPT_VERSION", "LLMSummarizer", "summary_prompt"]

PROMPT_VERSION = "llm-summary/2"

SYSTEM_PROMPT = """\
You compress an agent's memory entry into a short narrative summary that another agent will
rely on later. Write plain prose (no lists, no headings, no preamble). Keep every fact you are
told to keep, exactly (reformatting is fine, changing is not); never add a fact the entry does
not state."""


def _named(fact: Fact, names: dict[int, str]) -> str:
    name = names.get(id(fact), "fact")
    surface = fact.text or str(fact.value.canonical())
    return f"- {name}: {surface} (value: {fact.value.canonical()})"


def summary_prompt(request: SummaryRequest, frame: Frame | None = None) -> str:
    """The user message for ``request``, the entry inside ``frame`` (a fresh one if None)."""
    frame = frame or frame_for(request.text)
    lines = [
        f"Summarize the entry below in at most {request.budget_words} words.",
        "",
        summary_constraints(request.schema),
    ]
    if request.must_keep:
        known = facts_by_criticality(request.source_record, request.schema)
        names = {id(fact): name for fact, _, name in known}
        keyed = {(f.value.type, f.value.key()): name for f, _, name in known}
        for fact in request.must_keep:
            names.setdefault(id(fact), keyed.get((fact.value.type, fact.value.key()), "fact"))
        lines += [
            "",
            "A previous summary lost or changed these facts. This summary MUST state each of "
            "them, with exactly this value:",
            *(_named(fact, names) for fact in request.must_keep),
        ]
    if request.strictness > 0:
        lines.append("Be conservative: prefer the entry's own wording for every value you keep.")
    lines += ["", "Entry:", frame.wrap(request.text)]
    return "\n".join(lines)


class LLMSummarizer:
    """Summarizes with a model (``openai:...``, ``anthropic:...``)."""

    def __init__(
        self,
        model: str | ModelSpec | LLMClient,
        *,
        tokens_per_word: float = 2.0,
        min_max_tokens: int = 256,
        policy: CallPolicy | None = None,
        prices: PriceTable | None = None,
        params: ModelParams | None = None,
    ) -> None:
        if isinstance(model, LLMClient):
            self.client = model
        else:
            self.client = LLMClient(model, policy=policy, prices=prices, params=params)
        if tokens_per_word <= 0:
            raise UsageError("tokens_per_word must be positive")
        self.tokens_per_word = tokens_per_word
        self.min_max_tokens = min_max_tokens

    @property
    def identity(self) -> str:
        """``provider:model``."""
        return self.client.name

    def request(self, request: SummaryRequest) -> ChatRequest:
        """The model request for ``request`` (exposed for tests and prompt inspection)."""
        validate_request(request)
        max_tokens = max(self.min_max_tokens, round(request.budget_words * self.tokens_per_word))
        frame = frame_for(request.text)
        return ChatRequest(
            system=f"{SYSTEM_PROMPT}\n{frame.rule()}",
            messages=(Message("user", summary_prompt(request, frame)),),
            max_tokens=max_tokens,
            temperature=0.0,
        )

    def summarize(self, request: SummaryRequest) -> Summary:
        """Summarize (blocks on the model call)."""
        return runtime.run(self._summarize(request))

    async def asummarize(self, request: SummaryRequest) -> Summary:
        """Summarize, from any event loop."""
        return await runtime.run_async(self._summarize(request))

    async def _summarize(self, request: SummaryRequest) -> Summary:
        result = await self.client.acomplete(self.request(request))
        text = result.text.strip()
        if not text:
            raise InvalidOutput("the model returned an empty summary", model=self.identity)
        return Summary(
            text=text,
            summarizer=self.identity,
            method_version=PROMPT_VERSION,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            cost_usd=cost_str(result.cost_usd),
            over_budget=len(text.split()) > request.budget_words,
        )
