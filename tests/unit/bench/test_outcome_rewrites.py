"""The labelled SGD outcomes and their rewrites."""

from __future__ import annotations

import random

from bench.datasets import Dialogue, Turn
from bench.outcome_rewrites import labelled_outcomes, rewritten


def _dialogue(act: str, service: str = "Restaurants_2") -> Dialogue:
    turns = (
        Turn("user", "Book a table at Sino please.", (), ((service, "INFORM_INTENT"),)),
        Turn("system", "Your reservation has been made.", (), ((service, act),)),
    )
    return Dialogue("sgd", "1_00000", turns)


def test_notify_acts_of_transaction_services_are_labelled_outcomes() -> None:
    (done,) = labelled_outcomes([_dialogue("NOTIFY_SUCCESS")])
    assert done.done
    assert done.noun == "reservation"
    assert done.entry.text.endswith("system: Your reservation has been made.")
    (failed,) = labelled_outcomes([_dialogue("NOTIFY_FAILURE")])
    assert not failed.done
    assert list(labelled_outcomes([_dialogue("CONFIRM")])) == []
    assert list(labelled_outcomes([_dialogue("NOTIFY_SUCCESS", "Music_1")])) == []


def test_rewrites_replace_or_drop_the_outcome_turn() -> None:
    (outcome,) = labelled_outcomes([_dialogue("NOTIFY_SUCCESS")])
    rng = random.Random(0)
    assert rewritten(outcome, "drop", rng) == "user: Book a table at Sino please."
    reword = rewritten(outcome, "reword", rng)
    assert reword.startswith("user: Book a table at Sino please.\nsystem: ")
    assert "reservation" in reword
    flip = rewritten(outcome, "flip", rng)
    assert any(cue in flip for cue in ("could not", "unable", "didn't", "failed"))
