"""Transaction outcomes under the generic schema: a flipped outcome fails naming the decision
field, a dropped decision is a known gap, a faithful reword passes."""

from __future__ import annotations

from pathlib import Path

from factdiff.schema.builtin import builtin_schema
from factdiff.verify.check import check
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome
from tests.acceptance.test_cli import factdiff

FAILED_BOOKING = "Sorry, I couldn't make the reservation."


def test_a_failed_reservation_summarised_as_made_fails_naming_the_decision() -> None:
    result = check(FAILED_BOOKING, "The reservation was made.", builtin_schema("generic"))
    assert result.outcome is Outcome.FAILED
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.CHANGED, "inventory.decision")
    ]
    finding = result.diff.findings[0]
    assert finding.source is not None
    assert finding.summary is not None
    assert finding.source.value.display() == "not book"
    assert finding.summary.value.display() == "book"


def test_the_cli_names_the_decision_field(tmp_path: Path) -> None:
    source, summary = tmp_path / "source.txt", tmp_path / "summary.txt"
    source.write_text(FAILED_BOOKING + "\n", encoding="utf-8")
    summary.write_text("The reservation was made.\n", encoding="utf-8")
    run = factdiff("check", "--schema", "generic", str(source), str(summary))
    assert run.returncode != 0
    assert "inventory.decision" in run.stdout


def test_a_dropped_refusal_and_offer_are_known_gaps() -> None:
    source = "The agent refused the refund and offered a transfer. The customer's order is W1234."
    result = check(source, "The customer's order is W1234.", builtin_schema("generic"))
    assert result.outcome is Outcome.ACCEPTABLE_WITH_NOTES
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.MISSING, "inventory.decision"),
        (Verdict.MISSING, "inventory.decision"),
    ]
    assert result.notes == ("inventory.decision missing", "inventory.decision missing")


def test_faithful_rewords_of_an_outcome_pass() -> None:
    generic = builtin_schema("generic")
    failed = check(FAILED_BOOKING, "The reservation could not be made.", generic)
    assert failed.outcome is Outcome.CLEAN, failed.diff.findings
    done = check(
        "system: Your booking is confirmed. Enjoy your meal!",
        "I have made the reservation.",
        generic,
    )
    assert done.outcome is Outcome.CLEAN, done.diff.findings
    paid = check("The transfer was successful.", "The payment went through.", generic)
    assert paid.outcome is Outcome.CLEAN, paid.diff.findings


TWO_BOOKINGS = (
    "system: Your booking is done, a table for 4 at 5 pm.\n"
    "user: Thanks, get a cab for me and my friends to there.\n"
    "system: Your ride is booked, it will cost $23.30."
)


def missing_decisions(source: str, summary: str) -> tuple[list[str], Outcome]:
    """The decisions a summary is missing under the generic schema, and the outcome."""
    result = check(source, summary, builtin_schema("generic"))
    missing = [f for f in result.diff.missing if f.field == "inventory.decision"]
    return [f.source.value.display() for f in missing if f.source], result.outcome


def test_a_second_booking_dropped_is_a_gap_though_the_first_is_kept() -> None:
    summary = "Your booking is done, a table for 4 at 5 pm. The ride will cost $23.30."
    assert missing_decisions(TWO_BOOKINGS, summary) == (
        ["book: ride"],
        Outcome.ACCEPTABLE_WITH_NOTES,
    )


def test_both_bookings_restated_are_clean_of_decision_findings() -> None:
    summary = "Booking done: a table for 4 at 5 pm; the ride is booked and will cost $23.30."
    result = check(TWO_BOOKINGS, summary, builtin_schema("generic"))
    assert [f for f in result.diff.findings if f.field == "inventory.decision"] == []


APPOINTMENT_THEN_TABLE = (
    "system: Your appointment at the clinic has been booked for 3 pm.\n"
    "user: Thanks. Now a table for two at Nopa at 7 pm, please.\n"
    "system: Your reservation has been made."
)


def test_a_later_booking_dropped_is_a_gap_though_the_named_one_is_kept() -> None:
    summary = "Your appointment at the clinic is booked for 3 pm. A table for two at Nopa."
    assert missing_decisions(APPOINTMENT_THEN_TABLE, summary) == (
        ["book"],
        Outcome.ACCEPTABLE_WITH_NOTES,
    )
    both = "Your appointment at the clinic is booked for 3 pm. Your table at Nopa is reserved."
    kept = check(APPOINTMENT_THEN_TABLE, both, builtin_schema("generic"))
    assert [f for f in kept.diff.findings if f.field == "inventory.decision"] == []
    # the summary's second booking restates the first in its own reading (no table named
    # between them), yet it states two bookings, as the source does
    two = "Your appointment at the clinic is booked for 3 pm. Your reservation has been made."
    kept = check(APPOINTMENT_THEN_TABLE, two, builtin_schema("generic"))
    assert [f for f in kept.diff.findings if f.field == "inventory.decision"] == []


def test_a_booking_stated_of_a_pronoun_is_checked() -> None:
    source = "user: I need a cab to the airport.\nsystem: OK, it's on its way. It costs $23.30."
    generic = builtin_schema("generic")
    dropped = missing_decisions(source, "A cab to the airport costs $23.30.")
    assert dropped == (["book"], Outcome.ACCEPTABLE_WITH_NOTES)
    flipped = check(source, "The cab to the airport ($23.30) could not be booked.", generic)
    assert flipped.outcome is Outcome.FAILED
    kept = check(source, "Booked a cab to the airport; it costs $23.30.", generic)
    assert [f for f in kept.diff.findings if f.field == "inventory.decision"] == []


def test_a_decision_restated_without_its_object_is_one_decision() -> None:
    generic = builtin_schema("generic")
    cancelled = check(
        "I have cancelled order #W1234. Your order has been cancelled; a refund follows.",
        "Cancelled order #W1234; a refund follows.",
        generic,
    )
    assert cancelled.outcome is Outcome.CLEAN, cancelled.diff.findings
    cab = check(
        "system: I have booked your cab.\nsystem: It is on its way.", "Booked a cab.", generic
    )
    assert cab.outcome is Outcome.CLEAN, cab.diff.findings


BUS_THEN_CAR = (
    "system: Your reservation has been made. The bus leaves at 7 am.\n"
    "user: Thanks. I also need a rental car from March 3rd.\n"
    "system: Shall I reserve the car for you?\n"
    "user: Yes please.\n"
    "system: Your reservation has been made."
)


def test_one_of_two_bookings_stated_alike_dropped_is_a_gap() -> None:
    summary = "Your reservation has been made. The bus leaves at 7 am. A rental car from March 3rd."
    result = check(BUS_THEN_CAR, summary, builtin_schema("generic"))
    [gap] = [f for f in result.diff.missing if f.field == "inventory.decision"]
    assert gap.source is not None
    assert gap.source.value.display() == "book"
    assert gap.detail == "stated 2 times apart in the source, fewer in the summary"
    assert result.outcome is Outcome.ACCEPTABLE_WITH_NOTES


def test_both_bookings_stated_alike_are_kept_without_the_request_between() -> None:
    # a faithful trim drops the request that set the two bookings apart
    summary = (
        "Your reservation has been made. The bus leaves at 7 am. A rental car from March "
        "3rd. Your reservation has been made."
    )
    result = check(BUS_THEN_CAR, summary, builtin_schema("generic"))
    assert [f for f in result.diff.findings if f.field == "inventory.decision"] == []


def test_a_booking_restated_in_one_turn_is_one_occurrence() -> None:
    source = "system: Your reservation has been made. Your booking is confirmed for 7 pm."
    result = check(source, "Reservation made for 7 pm.", builtin_schema("generic"))
    assert result.outcome is Outcome.CLEAN, result.diff.findings


def test_a_booking_stated_fewer_times_is_a_gap_not_a_change_into_another_decision() -> None:
    summary = "Your reservation has been made. The bus leaves at 7 am. The car was cancelled."
    result = check(BUS_THEN_CAR, summary, builtin_schema("generic"))
    decisions = [
        (f.verdict, f.source and f.source.value.display(), f.summary and f.summary.value.display())
        for f in result.diff.findings
        if f.field == "inventory.decision"
    ]
    assert sorted(decisions, key=str) == sorted(
        [(Verdict.MISSING, "book", None), (Verdict.ADDED, None, "cancel: car")], key=str
    )
