"""The cases of issue 34 that the offline extractor and the diff now decide, naming the field."""

from __future__ import annotations

from factdiff.schema.builtin import builtin_schema
from factdiff.schema.loader import schema_from_yaml
from factdiff.verify.check import check
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome

PARTIES = schema_from_yaml(
    """schema: parties
version: 1
fields:
  customer: {type: person, criticality: critical, cues: [customer]}
  agent: {type: person, criticality: critical, cues: [agent]}
  passenger: {type: person, criticality: critical, cues: [passenger]}
""",
    "<test>/parties.yaml",
)


def findings(source: str, summary: str) -> list[tuple[str, str]]:
    result = check(source, summary, PARTIES)
    return [(f.verdict.value, f.field) for f in result.diff.findings]


def test_a_sentence_initial_name_changed_by_one_letter_fails_naming_the_field() -> None:
    schema = builtin_schema("customer_service")
    result = check("Greta Holm called about the invoice.", "Greta Holt called.", schema)
    assert result.outcome is Outcome.FAILED
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.CHANGED, "disputing_party")
    ]


def test_a_sentence_initial_name_kept_passes() -> None:
    schema = builtin_schema("customer_service")
    result = check("Daniel Okafor reports the parcel lost.", "Daniel Okafor: parcel lost.", schema)
    assert result.source_facts.fields["disputing_party"][0].value.canonical() == "Daniel Okafor"
    assert result.outcome is Outcome.CLEAN


def test_a_name_restated_without_its_holder_noun_is_kept() -> None:
    result = check("Customer Irene Costa returned it.", "Irene Costa returned it.", PARTIES)
    assert result.outcome is Outcome.CLEAN
    assert findings("Passenger Ana Ruiz flew out.", "Ana Ruiz flew out.") == []


def test_a_name_restated_elsewhere_in_another_order_is_kept() -> None:
    assert findings("Customer Ana Ruiz called.", "Ana Ruiz (customer) called.") == []


def test_a_name_restated_under_another_role_is_a_change_of_the_field() -> None:
    assert findings("Customer Irene Costa returned it.", "Agent Irene Costa returned it.") == [
        ("changed", "customer")
    ]


def test_the_field_table_names_a_rebound_value_changed_too() -> None:
    result = check("Customer Irene Costa returned it.", "Agent Irene Costa returned it.", PARTIES)
    rows = {row.field: row.verdict for row in result.diff.rows}
    assert rows["customer"] is Verdict.CHANGED


def test_two_peoples_roles_swapped_are_two_changes() -> None:
    assert findings(
        "Customer Ana Ruiz spoke to agent Tom Berg.", "Customer Tom Berg spoke to agent Ana Ruiz."
    ) == [("changed", "customer"), ("changed", "agent")]


def test_a_name_with_one_letter_changed_without_its_cue_is_not_kept() -> None:
    assert findings("Customer Greta Holm called.", "Greta Holt called.") == [
        ("missing", "customer")
    ]


def test_an_organisation_with_a_nordic_legal_form_is_a_fact() -> None:
    schema = builtin_schema("customer_service")
    source = "Nordlys AS disputes invoice INV-4410."
    result = check(source, "Nordlys AS disputes INV-4410.", schema)
    assert result.source_facts.fields["company_name"][0].value.canonical() == "Nordlys AS"
    assert result.outcome is Outcome.CLEAN
    dropped = check(source, "The customer disputes INV-4410.", schema)
    assert [(f.verdict, f.field) for f in dropped.diff.findings] == [
        (Verdict.MISSING, "company_name")
    ]


DECISION_SOURCE = (
    "Order ORD-5521 arrived damaged on March 3, 2026. "
    "The agent refused the refund and offered a transfer."
)


def test_a_dropped_decision_is_a_known_gap_under_the_generic_schema() -> None:
    generic = builtin_schema("generic")
    result = check(DECISION_SOURCE, "Order ORD-5521 arrived damaged on March 3, 2026.", generic)
    assert result.outcome is Outcome.ACCEPTABLE_WITH_NOTES
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.MISSING, "inventory.decision"),
        (Verdict.MISSING, "inventory.decision"),
    ]
    assert result.notes == ("inventory.decision missing", "inventory.decision missing")


def test_refused_to_agreed_fails_as_a_changed_decision() -> None:
    generic = builtin_schema("generic")
    summary = DECISION_SOURCE.replace("refused", "agreed to")
    result = check(DECISION_SOURCE, summary, generic)
    assert result.outcome is Outcome.FAILED
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.CHANGED, "inventory.decision")
    ]


def test_swapped_deadlines_fail_under_the_generic_schema() -> None:
    generic = builtin_schema("generic")
    source = "The refund is due by March 3, 2026 and the replacement ships by March 10, 2026."
    summary = "The refund is due by March 10, 2026 and the replacement ships by March 3, 2026."
    result = check(source, summary, generic)
    assert result.outcome is Outcome.FAILED
    assert [(f.verdict, f.field, f.detail) for f in result.diff.findings] == [
        (
            Verdict.CHANGED,
            "inventory.date",
            "due refund is 2026-03-03 in the source (the source's delivery)",
        ),
        (
            Verdict.CHANGED,
            "inventory.date",
            "delivery is 2026-03-10 in the source (the source's due+refund)",
        ),
    ]


def test_a_dropped_phone_number_is_a_known_gap_under_the_generic_schema() -> None:
    generic = builtin_schema("generic")
    source = "Call the customer back at +1 415 555 0199 about order ORD-5521."
    result = check(source, "Call the customer back about order ORD-5521.", generic)
    assert result.outcome is Outcome.ACCEPTABLE_WITH_NOTES
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.MISSING, "inventory.phone")
    ]


def generic_findings(source: str, summary: str) -> tuple[Outcome, list[tuple[str, str]]]:
    result = check(source, summary, builtin_schema("generic"))
    return result.outcome, [(f.verdict.value, f.field) for f in result.diff.findings]


def test_a_changed_name_fails_under_the_generic_schema() -> None:
    source = "Greta Holm called about order #A-4471; refund of $45 approved on March 3."
    kept = "Greta Holm called about order #A-4471; refund of $45 approved on March 3."
    changed = "Greta Holt called about order #A-4471; refund of $45 approved on March 3."
    assert generic_findings(source, kept) == (Outcome.CLEAN, [])
    assert generic_findings(source, changed) == (
        Outcome.FAILED,
        [("changed", "inventory.person")],
    )


def test_a_dropped_name_is_a_known_gap_under_the_generic_schema() -> None:
    source = "Spoke with Marta Lindqvist at Acme Corp about the renewal quote."
    assert generic_findings(source, "Spoke with Acme Corp about the renewal quote.") == (
        Outcome.ACCEPTABLE_WITH_NOTES,
        [("missing", "inventory.person")],
    )
    assert generic_findings(source, "Marta Lindqvist wants a renewal quote.") == (
        Outcome.ACCEPTABLE_WITH_NOTES,
        [("missing", "inventory.organization")],
    )


def test_a_family_name_or_a_name_without_its_legal_form_restates_it() -> None:
    source = "Daniel Okafor reports that Nordlys AS billed INV-2231 twice."
    assert generic_findings(source, "Okafor: Nordlys billed INV-2231 twice.") == (
        Outcome.CLEAN,
        [],
    )
    assert generic_findings(source, "Ana Okafor: Nordlys AS billed INV-2231 twice.") == (
        Outcome.FAILED,
        [("changed", "inventory.person")],
    )


def test_two_peoples_roles_swapped_fail_under_the_generic_schema() -> None:
    source = "Agent Priya Raman refunded customer Daniel Okafor $120 for INV-2231."
    swapped = "Agent Daniel Okafor refunded customer Priya Raman $120 for INV-2231."
    apposed = "Priya Raman (agent) refunded Daniel Okafor (client) $120 for INV-2231."
    assert generic_findings(source, swapped) == (
        Outcome.FAILED,
        [("changed", "inventory.person"), ("changed", "inventory.person")],
    )
    assert generic_findings(source, apposed) == (Outcome.CLEAN, [])


def test_two_dates_after_by_go_to_the_field_whose_cue_is_near_only_one() -> None:
    schema = builtin_schema("customer_service")
    source = (
        "Customer Marcus Chen disputes $2,400 on INV-9182; we will issue the credit memo due "
        "by April 10, and he will pay the rest by April 30."
    )
    record = check(source, source, schema).source_facts
    assert record.fields["credit_memo_deadline"][0].value.canonical() == "--04-10"
    assert record.fields["payment_deadline"][0].value.canonical() == "--04-30"
    swapped = source.replace("April 10", "April 3O").replace("April 30", "April 10")
    swapped = swapped.replace("April 3O", "April 30")
    result = check(source, swapped, schema)
    assert sorted((f.verdict.value, f.field) for f in result.diff.findings) == [
        ("changed", "credit_memo_deadline"),
        ("changed", "payment_deadline"),
    ]
