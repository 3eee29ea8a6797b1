"""Shared pieces of the LLM integration tests: a scripted server, clients bound to it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from factdiff.providers import CallPolicy, ModelSpec, Price, PriceTable, shutdown
from factdiff.testing import Answer, ScriptedLLMServer

FAST = CallPolicy(deadline_s=10.0, max_attempts=3, backoff_s=0.0, max_inline_wait_s=1.0)
"""No backoff waits, so tests never sleep; the deadline is far above any answer here."""

PRICES = PriceTable(
    {
        "openai:test-extractor": Price(Decimal("1.00"), Decimal("2.00")),
        "openai:test-summarizer": Price(Decimal("3.00"), Decimal("4.00")),
        "anthropic:test-extractor": Price(Decimal("1.00"), Decimal("2.00")),
        "anthropic:test-summarizer": Price(Decimal("3.00"), Decimal("4.00")),
    }
)

PROVIDERS = ("openai", "anthropic")


@contextmanager
def scripted(*answers: Answer, **kwargs: Any) -> Iterator[ScriptedLLMServer]:
    """A started server; on exit the model clients close first, then the server."""
    server = ScriptedLLMServer(answers, **kwargs).start()
    try:
        yield server
    finally:
        shutdown()
        server.stop()


def spec(server: ScriptedLLMServer, provider: str, model: str = "test-extractor") -> ModelSpec:
    """A model on ``server`` with a fake key (never the environment's)."""
    url = server.openai_url if provider == "openai" else server.anthropic_url
    return ModelSpec(provider, model, base_url=url, api_key="sk-test-not-a-key")


def v(value: Any, quote: str) -> dict[str, Any]:
    """One grounded value of an extraction answer."""
    return {"value": value, "quote": quote}


TOOL_QUOTE = (
    "invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400, "
    "reason='disputed_line_item_3', notes='see customer call 2026-03-14') returned success "
    "with credit_memo_id='CM-3392'"
)


def worked_answer(**overrides: Any) -> dict[str, Any]:
    """A correct extraction of the worked example's source (customer_service v2)."""
    answer: dict[str, Any] = {
        "customer_id": v("cust_482", "cust_482"),
        "company_name": v("Acme Corp", "Acme Corp"),
        "invoice_id": v("INV-9182", "invoice INV-9182"),
        "invoice_total": v({"amount": "14250", "currency": "USD"}, "totaling $14,250"),
        "disputed_amount": v({"amount": "2400", "currency": "USD"}, "$2,400"),
        "call_time": v("2026-03-14T14:32:00-05:00", "2026-03-14 14:32 EST"),
        "disputing_party": v("Marcus Chen", "their CTO Marcus Chen"),
        "payment_deadline": v("2026-03-25", "2026-03-25"),
        "credit_memo_deadline": v("2026-03-15", "2026-03-15"),
        "payment_commitment": v(True, "agreed to pay"),
        "work_authorized": v(False, "was not authorized"),
        "credit_memo_id": v("CM-3392", "CM-3392"),
        "tool_calls": [
            v(
                {
                    "name": "invoice.adjust",
                    "arguments": [
                        {"name": "invoice_id", "value": "INV-9182"},
                        {"name": "adjustment_amount", "value": "-2400"},
                    ],
                    "result": "success",
                },
                TOOL_QUOTE,
            )
        ],
        "tone": None,
    }
    answer.update(overrides)
    return answer
