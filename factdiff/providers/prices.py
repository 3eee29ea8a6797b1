"""Token prices and call costs.

A ``PriceTable`` maps ``provider:model`` (or a bare model name) to USD per million input and
output tokens. The defaults below are list prices at the time of writing and will go stale:
pass your own table, or point ``FACTDIFF_PRICES`` at a JSON file
``{"openai:gpt-4.1-mini": {"input": "0.40", "output": "1.60"}, ...}``. A model the table does
not know has no cost (``None``), never a guessed one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from factdiff.errors import UsageError
from factdiff.inputs import json_toml

__all__ = ["DEFAULT_PRICES", "Price", "PriceTable"]

MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: Decimal
    output: Decimal


DEFAULT_PRICES: Mapping[str, Price] = {
    "openai:gpt-4.1": Price(Decimal("2.00"), Decimal("8.00")),
    "openai:gpt-4.1-mini": Price(Decimal("0.40"), Decimal("1.60")),
    "openai:gpt-4.1-nano": Price(Decimal("0.10"), Decimal("0.40")),
    "openai:gpt-4o": Price(Decimal("2.50"), Decimal("10.00")),
    "openai:gpt-4o-mini": Price(Decimal("0.15"), Decimal("0.60")),
    "anthropic:claude-opus-4-1": Price(Decimal("15.00"), Decimal("75.00")),
    "anthropic:claude-sonnet-4-5": Price(Decimal("3.00"), Decimal("15.00")),
    "anthropic:claude-haiku-4-5": Price(Decimal("1.00"), Decimal("5.00")),
}


@dataclass(frozen=True)
class PriceTable:
    """Prices by ``provider:model``; ``cost()`` is None for unknown models."""

    prices: Mapping[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    def cost(self, model: str, tokens_in: int | None, tokens_out: int | None) -> Decimal | None:
        """USD for one call, or None when the model or the token counts are unknown."""
        price = self.prices.get(model) or self.prices.get(model.partition(":")[2])
        if price is None or tokens_in is None or tokens_out is None:
            return None
        return (price.input * tokens_in + price.output * tokens_out) / MILLION

    @classmethod
    def from_json(cls, data: Mapping[str, Mapping[str, object]]) -> PriceTable:
        """A table from ``{model: {"input": USD/M, "output": USD/M}}`` (strings or numbers)."""
        prices: dict[str, Price] = {}
        for model, entry in data.items():
            try:
                prices[model] = Price(Decimal(str(entry["input"])), Decimal(str(entry["output"])))
            except (KeyError, TypeError, InvalidOperation):
                raise UsageError(
                    f"price table entry {model!r} needs numeric 'input' and 'output'"
                ) from None
        return cls(prices)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PriceTable:
        """The defaults, overridden by the JSON file named by ``FACTDIFF_PRICES`` if set."""
        env = os.environ if environ is None else environ
        path = env.get("FACTDIFF_PRICES")
        if not path:
            return cls()
        try:
            data = json_toml.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            message = f"FACTDIFF_PRICES={path}: cannot read the price table: {exc}"
            raise UsageError(message) from None
        if not isinstance(data, dict):
            raise UsageError(f"FACTDIFF_PRICES={path}: expected a JSON object")
        return cls({**DEFAULT_PRICES, **cls.from_json(data).prices})
