"""Decisions and commitments: an action verb's class, its polarity and what it governs.

``The agent refused the refund`` is ``refuse: refund``; ``did not cancel order #W12`` is
``not cancel: order w12``. Verbs of one class are one decision (refused, declined, denied and
rejected are all ``refuse``). Two decisions are the same fact when class and polarity agree
and their objects match loosely: one shares a content word with the other, or either has none
(``confirmed`` restates ``confirmed the booking``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from factdiff.values.base import EXACT, JSON, FactType, Tolerance, Value, register_decoder


@dataclass(frozen=True)
class DecisionValue(Value):
    """One decision: ``verb`` is the class name, ``obj`` its object's content words."""

    type: ClassVar[FactType] = FactType.DECISION
    verb: str
    negated: bool = False
    obj: tuple[str, ...] = ()

    def canonical(self) -> JSON:
        head = f"not {self.verb}" if self.negated else self.verb
        return f"{head}: {' '.join(self.obj)}" if self.obj else head

    def key(self) -> object:
        return (self.verb, self.negated, self.obj)

    def same_as(self, other: Value, tolerance: Tolerance = EXACT) -> bool:
        if not isinstance(other, DecisionValue):
            return False
        if (other.verb, other.negated) != (self.verb, self.negated):
            return False
        return not self.obj or not other.obj or bool(set(self.obj) & set(other.obj))

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"type": self.type.value, "verb": self.verb}
        if self.negated:
            data["negated"] = True
        if self.obj:
            data["object"] = list(self.obj)
        return data


@register_decoder(FactType.DECISION.value)
def _decision(data: dict[str, JSON]) -> Value:
    raw = data.get("object") or []
    words = tuple(str(w) for w in raw) if isinstance(raw, list) else ()
    return DecisionValue(str(data["verb"]), bool(data.get("negated", False)), words)
