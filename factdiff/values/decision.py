"""Decisions and commitments: an action verb's class, its polarity and what it governs.

``The agent refused the refund`` is ``refuse: refund``; ``did not cancel order #W12`` is
``not cancel: order w12``. Verbs of one class are one decision (refused, declined, denied and
rejected are all ``refuse``). A decision's identity is its class and polarity; the object (only
ever bound when the extractor read the verb's direct object with confidence) tells apart two
decisions of one class only when both sides have one: identifiers (words with a digit) are
compared when both state some, else nouns, which match when they share one (``confirmed``
restates ``confirmed the booking``; ``refused the refund`` is not ``refused the exchange``).
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
        return self._objects_agree(other)

    def same_object(self, other: DecisionValue) -> bool:
        """Whether both decisions bind an object and it is the same one (``refused the
        upgrade offer`` and ``accepted the upgrade``), whatever their class and polarity."""
        return bool(self.obj) and bool(other.obj) and self._objects_agree(other)

    def _objects_agree(self, other: DecisionValue) -> bool:
        mine, theirs = _split(self.obj), _split(other.obj)
        for kind in (0, 1):  # identifiers first, then nouns
            if mine[kind] and theirs[kind]:
                return bool(mine[kind] & theirs[kind])
        return True

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {"type": self.type.value, "verb": self.verb}
        if self.negated:
            data["negated"] = True
        if self.obj:
            data["object"] = list(self.obj)
        return data


def _split(words: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """(identifiers, nouns) of an object."""
    ids = frozenset(w for w in words if any(c.isdigit() for c in w))
    return ids, frozenset(words) - ids


@register_decoder(FactType.DECISION.value)
def _decision(data: dict[str, JSON]) -> Value:
    raw = data.get("object") or []
    words = tuple(str(w) for w in raw) if isinstance(raw, list) else ()
    return DecisionValue(str(data["verb"]), bool(data.get("negated", False)), words)
