"""A name the source states with a cue and the summary writes out without one is kept."""

from __future__ import annotations

from factdiff.schema.builtin import builtin_schema
from factdiff.values.base import FactType
from factdiff.verify.check import check, extract, verify
from factdiff.verify.diff import Verdict
from factdiff.verify.policy import Outcome

SOURCE = "The patient, Ms. Ayumi Sato, rescheduled her cleaning from Dec 3 to Dec 10."


def test_a_name_written_out_without_its_cue_is_restated() -> None:
    schema = builtin_schema("customer_service")
    summary = "Ayumi Sato moved her cleaning from Dec 3 to Dec 10."
    assert extract(summary, schema).fields["disputing_party"] == ()  # no cue to tell it by
    result = check(SOURCE, summary, schema)
    assert result.outcome is Outcome.CLEAN
    (restated,) = result.summary_facts.unbound[FactType.PERSON]
    assert (restated.text, restated.spans) == ("Ayumi Sato", ((0, 10),))


def test_a_name_changed_by_one_letter_is_not_restated() -> None:
    schema = builtin_schema("customer_service")
    result = check(SOURCE, "Ayumi Saito moved her cleaning from Dec 3 to Dec 10.", schema)
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.MISSING, "disputing_party")
    ]


def test_verify_reads_the_summary_as_written_only_when_given() -> None:
    schema = builtin_schema("customer_service")
    summary = "Ayumi Sato moved her cleaning from Dec 3 to Dec 10."
    source_facts, summary_facts = extract(SOURCE, schema), extract(summary, schema)
    assert verify(source_facts, summary_facts, schema).outcome is Outcome.FAILED
    written = verify(source_facts, summary_facts, schema, summary_text=summary)
    assert written.outcome is Outcome.CLEAN


GENERIC_SOURCE = "Daniel Okafor and Lena Fischer of Alpenblick GmbH disputed INV-7781."


def restated(summary: str) -> list[str]:
    result = check(GENERIC_SOURCE, summary, builtin_schema("generic"))
    facts = [
        *result.summary_facts.unbound.get(FactType.PERSON, ()),
        *result.summary_facts.unbound.get(FactType.ORGANIZATION, ()),
    ]
    return sorted(f"{fact.value.canonical()}@{fact.spans[0][0]}" for fact in facts)


def test_a_capitalised_family_name_alone_restates_the_person() -> None:
    assert restated("Okafor and Fischer (Alpenblick GmbH) disputed INV-7781.") == [
        "Fischer@11",
        "Okafor@0",
    ]


def test_a_family_name_in_lower_case_or_inside_another_name_restates_no_one() -> None:
    assert restated("okafor and Fischer (Alpenblick GmbH) disputed INV-7781.") == ["Fischer@11"]
    assert "Okafor@4" not in restated("Ana Okafor and Lena Fischer disputed INV-7781.")


def test_a_family_name_two_source_people_share_restates_neither() -> None:
    source = "Daniel Okafor and Maria Okafor disputed INV-7781."
    result = check(source, "Okafor disputed INV-7781.", builtin_schema("generic"))
    assert result.summary_facts.unbound.get(FactType.PERSON, ()) == ()


def test_an_organisation_without_its_legal_form_restates_it() -> None:
    assert restated("Daniel Okafor and Lena Fischer of Alpenblick disputed INV-7781.") == [
        "Alpenblick GmbH@34"
    ]


VENUE_SOURCE = (
    "user: I am looking to dine at Charlie Chan. system: Charlie Chan is a cheap Chinese "
    "restaurant in the centre. user: I need a taxi between Charlie Chan and the museum at 17:30."
)
VENUE_SUMMARY = "user: I need a taxi between Charlie Chan and the museum at 17:30."


def test_a_name_the_source_writes_as_a_thing_is_not_added_by_the_summary() -> None:
    schema = builtin_schema("generic")
    source_facts, summary_facts = extract(VENUE_SOURCE, schema), extract(VENUE_SUMMARY, schema)
    assert FactType.PERSON not in source_facts.inventory  # the source reads a restaurant
    assert [f.value.canonical() for f in summary_facts.inventory[FactType.PERSON]] == [
        "Charlie Chan"
    ]
    blind = verify(source_facts, summary_facts, schema, summary_text=VENUE_SUMMARY)
    assert [(f.verdict, f.field) for f in blind.diff.findings] == [
        (Verdict.ADDED, "inventory.person")
    ]
    seen = verify(
        source_facts, summary_facts, schema, summary_text=VENUE_SUMMARY, source_text=VENUE_SOURCE
    )
    assert seen.outcome is Outcome.CLEAN
    assert check(VENUE_SOURCE, VENUE_SUMMARY, schema).outcome is Outcome.CLEAN


def test_a_name_the_source_never_writes_is_still_added() -> None:
    summary = "user: I need a taxi between Charlie Chen and the museum at 17:30."
    result = check(VENUE_SOURCE, summary, builtin_schema("generic"))
    assert [(f.verdict, f.field) for f in result.diff.findings] == [
        (Verdict.ADDED, "inventory.person")
    ]


def test_a_name_written_without_its_accents_or_its_dotted_legal_form_is_restated() -> None:
    source = "José García from Telefónica S.A. reported outage OUT-4412 at 09:30."
    result = check(
        source, "Jose Garcia (Telefonica): OUT-4412 at 09:30.", builtin_schema("generic")
    )
    assert result.outcome is Outcome.CLEAN


GENERIC = builtin_schema("generic")
RELEASES = (
    "Release 4.2 shipped to 10% of users; we rolled it back after the error spike and "
    "re-released 4.2.1 the next day. The app is on version 7.3."
)


def test_a_version_written_as_bare_numbers_is_restated_both_ways() -> None:
    summary = "4.2 went to 10% of users and shipped; rolled back, v4.2.1 re-released; app on 7.3."
    result = check(RELEASES, summary, GENERIC)
    assert [f for f in result.diff.findings if f.fact_type is FactType.IDENTIFIER] == []


def test_a_version_with_other_numbers_is_not_restated() -> None:
    summary = "Release 4.2 shipped to 10% of users, rolled back; 4.2.2 re-released; app on 7.4."
    result = check(RELEASES, summary, GENERIC)
    assert result.outcome is Outcome.FAILED
    found = {
        (f.verdict, f.source.value.display() if f.source else None)
        for f in result.diff.findings
        if f.fact_type is FactType.IDENTIFIER
    }
    assert found == {(Verdict.CHANGED, "v4.2.1"), (Verdict.MISSING, "v7.3")}
