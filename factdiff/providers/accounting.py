"""``ModelCall``: the accounting record of one logical model call, shared by the provider
clients that make calls and the store that keeps them (table ``model_calls``)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from factdiff.inputs.json_toml import JSON

__all__ = ["ModelCall"]


@dataclass(frozen=True)
class ModelCall:
    """One logical model call, answered or failed.

    ``role`` is what the call was for (``summarize``, ``extract_source``,
    ``extract_summary``; empty outside an attempt); ``outcome`` is ``ok`` or the failure
    class. Tokens are every HTTP answer's (a truncated answer was billed too); ``cost_usd``
    is None when the price of the model or a token count is unknown.
    """

    model: str
    role: str
    outcome: str
    http_calls: int
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: Decimal | None
    duration_ms: float

    def to_json(self) -> dict[str, JSON]:
        """JSON-ready (cost as a string, None when unknown)."""
        return {
            "model": self.model,
            "role": self.role,
            "outcome": self.outcome,
            "http_calls": self.http_calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": None if self.cost_usd is None else format(self.cost_usd, "f"),
            "duration_ms": round(self.duration_ms, 3),
        }
