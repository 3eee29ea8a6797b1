"""The LLM summarizer, compress() with it, specs and concurrency, against the scripted server."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from factdiff.compression.components import (
    check_distinct_models,
    extractor_from_spec,
    ladder_from_spec,
    ladder_summarizer_specs,
    resolve_extractor_spec,
    resolve_summarizer_spec,
    summarizer_from_spec,
)
from factdiff.compression.pipeline import Rung, acompress, compress, compress_many
from factdiff.errors import UsageError
from factdiff.extraction.jury import FlooredExtractor, JuryExtractor
from factdiff.extraction.llm import LLMExtractor
from factdiff.extraction.rules import RulesExtractor
from factdiff.providers import QuotaExhausted, Truncated, set_provider_limit
from factdiff.schema.model import FactSchema
from factdiff.summarize.base import SummaryRequest
from factdiff.summarize.llm import LLMSummarizer
from factdiff.testing import Answer, RecordedRequest
from factdiff.verify.policy import Outcome
from tests.conftest import worked
from tests.integration.llm_helpers import (
    FAST,
    PRICES,
    PROVIDERS,
    scripted,
    spec,
    worked_answer,
)

SOURCE = worked("source")
FAITHFUL = worked("faithful")
FLUENT = worked("fluent")
INVENTED = worked("invented")
CHANGED = worked("changed")


def summarizer(server: object, provider: str) -> LLMSummarizer:
    return LLMSummarizer(
        spec(server, provider, "test-summarizer"),  # type: ignore[arg-type]
        policy=FAST,
        prices=PRICES,
    )


def ladder(llm: LLMSummarizer, rungs: int = 2) -> tuple[Rung, ...]:
    return tuple(Rung(llm, budget_words=60 + 40 * i, strictness=i) for i in range(rungs))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_faithful_llm_summary_passes_compress(
    provider: str, customer_service: FactSchema
) -> None:
    with scripted(Answer.text(FAITHFUL).with_usage(900, 120)) as server:
        result = compress(SOURCE, customer_service, ladder(summarizer(server, provider)))
    assert result.outcome is Outcome.CLEAN
    assert result.summary == FAITHFUL
    (attempt,) = result.attempts
    assert attempt.summarizer == f"{provider}:test-summarizer"
    assert attempt.method_version == "llm-summary/2"
    assert (attempt.tokens_in, attempt.tokens_out) == (900, 120)
    assert attempt.cost_usd is not None
    assert Decimal(attempt.cost_usd) == Decimal("0.00318")  # 900 x $3/M + 120 x $4/M
    assert server.request_count == 1
    prompt = server.requests[0].prompt
    assert "at most 60 words" in prompt
    assert "customer_service" in prompt
    assert "payment_deadline" in prompt
    assert SOURCE in prompt


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_failed_rung_names_the_lost_facts_to_the_next(
    provider: str, customer_service: FactSchema
) -> None:
    with scripted(Answer.text(FLUENT), Answer.text(FLUENT)) as server:
        result = compress(SOURCE, customer_service, ladder(summarizer(server, provider)))
    assert result.outcome is Outcome.FAILED
    assert result.summary is None
    assert [a.outcome for a in result.attempts] == [Outcome.FAILED, Outcome.FAILED]
    assert server.request_count == 2
    first, second = (r.last_user_message for r in server.requests)
    assert "MUST state" not in first
    assert "MUST state" in second
    for stated in ("cust_482", "INV-9182", "CM-3392", "2026-03-25", "$14,250"):
        assert stated in second.split("Entry:")[0], stated
    assert "credit_memo_id: CM-3392" in second


@pytest.mark.parametrize(
    ("answer", "verdict", "value"),
    [(INVENTED, "added", "INV-9183"), (CHANGED, "changed", "2500 USD")],
    ids=["invents-a-fact", "changes-a-fact"],
)
def test_an_llm_summary_that_invents_or_changes_a_fact_fails(
    answer: str, verdict: str, value: str, customer_service: FactSchema
) -> None:
    with scripted(Answer.text(answer)) as server:
        result = compress(SOURCE, customer_service, ladder(summarizer(server, "openai"), 1))
    assert result.outcome is Outcome.FAILED
    findings = result.attempts[0].to_json()[verdict]
    assert isinstance(findings, list)
    assert value in str(findings)


def test_an_llm_summary_that_drops_a_fact_then_keeps_it_passes(
    customer_service: FactSchema,
) -> None:
    dropped = FAITHFUL.replace(" with credit memo ID CM-3392", "")
    with scripted(Answer.text(dropped), Answer.text(FAITHFUL)) as server:
        result = compress(SOURCE, customer_service, ladder(summarizer(server, "anthropic")))
    assert [a.outcome for a in result.attempts] == [Outcome.FAILED, Outcome.CLEAN]
    assert "credit_memo_id: CM-3392" in server.requests[1].last_user_message


def test_a_truncated_summary_is_a_typed_failure_not_a_summary(
    customer_service: FactSchema,
) -> None:
    with (
        scripted(responder=lambda _r: Answer.truncated(FAITHFUL[:80])) as server,
        pytest.raises(Truncated),
    ):
        compress(SOURCE, customer_service, ladder(summarizer(server, "openai"), 1))
    budgets = [r.body["max_tokens"] for r in server.requests]
    assert budgets == [256, 512, 1024, 2048, 4096, 8192, 16384]  # raised, then given up


def test_max_tokens_follows_the_word_budget(customer_service: FactSchema) -> None:
    with scripted() as server:
        llm = summarizer(server, "openai")
        record = RulesExtractor().extract(SOURCE, customer_service)
        request = SummaryRequest(SOURCE, customer_service, record, budget_words=400)
        assert llm.request(request).max_tokens == 800


def _llm_pair_responder(request: RecordedRequest) -> Answer:
    """Extraction of the source or of a summary equal to it; summaries echo the source."""
    if request.structured:
        return Answer.json(worked_answer())
    return Answer.text(SOURCE)


def test_llm_calls_per_clean_compression_are_three(customer_service: FactSchema) -> None:
    with scripted(responder=_llm_pair_responder) as server:
        extractor = LLMExtractor(spec(server, "openai"), policy=FAST, prices=PRICES)
        llm = summarizer(server, "anthropic")
        result = compress(SOURCE, customer_service, ladder(llm), extractor=extractor)
    assert result.outcome is Outcome.CLEAN
    assert server.request_count == 3
    assert [r.provider for r in server.requests] == ["openai", "anthropic", "openai"]


def test_concurrent_compressions_return_results_and_typed_errors(
    customer_service: FactSchema,
) -> None:
    poisoned = SOURCE.replace("cust_482", "cust_777")

    def responder(request: RecordedRequest) -> Answer:
        if "cust_777" in request.prompt:
            return Answer.quota_exhausted()
        return Answer.text(FAITHFUL).after(0.05)

    set_provider_limit("openai", 4)
    try:
        with scripted(responder=responder) as server:
            rung = Rung(summarizer(server, "openai"), budget_words=80)
            texts = [poisoned if i == 5 else SOURCE for i in range(20)]
            results = asyncio.run(compress_many(texts, customer_service, (rung,), concurrency=8))
    finally:
        set_provider_limit("openai", None)
    assert isinstance(results[5], QuotaExhausted)
    clean = [r for i, r in enumerate(results) if i != 5]
    assert all(getattr(r, "outcome", None) is Outcome.CLEAN for r in clean)
    assert server.request_count == 20
    assert server.max_in_flight == 4  # the provider bound held across the 8 in flight


def test_acompress_and_compress_many_on_asyncio(customer_service: FactSchema) -> None:
    with scripted(responder=lambda _request: Answer.text(FAITHFUL)) as server:
        llm = summarizer(server, "anthropic")

        async def main() -> None:
            single = await acompress(SOURCE, customer_service, ladder(llm))
            assert single.outcome is Outcome.CLEAN
            many = await compress_many([SOURCE] * 6, customer_service, ladder(llm), concurrency=3)
            assert all(getattr(r, "outcome", None) is Outcome.CLEAN for r in many)

        asyncio.run(main())
    assert server.request_count == 7


def test_specs_build_llm_components_and_refuse_the_same_model() -> None:
    env = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-test"}
    assert resolve_extractor_spec(None, {}) == "rules"
    assert resolve_extractor_spec(None, {"FACTDIFF_EXTRACTOR": "jury:openai:m"}) == "jury:openai:m"
    assert resolve_extractor_spec("rules", {"FACTDIFF_EXTRACTOR": "openai:m"}) == "rules"
    assert resolve_summarizer_spec(None, {}) == "extractive"
    assert resolve_summarizer_spec(None, {"FACTDIFF_SUMMARIZER": "anthropic:c"}) == "anthropic:c"
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        patch.delenv("OPENAI_BASE_URL", raising=False)
        patch.delenv("ANTHROPIC_BASE_URL", raising=False)
        floored = extractor_from_spec("openai:gpt-4.1-mini")
        assert isinstance(floored, FlooredExtractor)
        assert isinstance(floored.llm, LLMExtractor)
        jury = extractor_from_spec("jury:anthropic:claude-haiku-4-5")
        assert isinstance(jury, JuryExtractor)
        llm = summarizer_from_spec("openai:qwen2.5:7b")
        assert isinstance(llm, LLMSummarizer)
        assert llm.identity == "openai:qwen2.5:7b"
        rungs = ladder_from_spec("openai:qwen2.5:7b:0.35x,anthropic:claude-sonnet-4-5:0.6x:strict")
        assert [r.summarizer.identity for r in rungs] == [
            "openai:qwen2.5:7b",
            "anthropic:claude-sonnet-4-5",
        ]
        assert [r.budget_ratio for r in rungs] == [0.35, 0.6]
    with pytest.raises(UsageError, match="both"):
        check_distinct_models("jury:openai:gpt-4.1-mini", ["extractive", "openai:gpt-4.1-mini"])
    check_distinct_models("openai:gpt-4.1-mini", ["openai:gpt-4.1-mini"], allow_same_model=True)
    check_distinct_models("openai:gpt-4.1-mini", ladder_summarizer_specs("anthropic:c:60,naive"))
    with pytest.raises(UsageError, match="unknown extractor"):
        extractor_from_spec("mistral:large")
