"""Reading a name where a cue says one starts."""

from __future__ import annotations

from factdiff.extraction.recognizers.name_scan import (
    capitalised,
    common,
    scan_lower_name,
    scan_name,
)


def test_capitalised_words() -> None:
    assert capitalised("Ana")
    assert capitalised("O'Shea")
    assert capitalised("J.")
    assert not capitalised("ana")
    assert not capitalised("USD")


def test_common_words_and_their_plurals() -> None:
    assert common("Hotel")
    assert common("hotels")
    assert common("Monday")
    assert not common("Okafor")


def test_scan_name_stops_at_a_common_word_and_refuses_a_place() -> None:
    span = scan_name("to Ana Ruiz tomorrow", 2)
    assert span is not None
    assert span.tokens == ("Ana", "Ruiz")
    assert (span.start, span.end) == (3, 11)
    assert scan_name("to Grand Hotel", 2) is None
    assert scan_name("to tomorrow", 2) is None


def test_scan_lower_name_needs_a_known_first_word() -> None:
    known = frozenset({"harry"})
    span = scan_lower_name("by harry elfont .", 2, known)
    assert span is not None
    assert span.tokens == ("harry", "elfont")
    assert scan_lower_name("by zorblat elfont", 2, known) is None
    assert scan_lower_name("by the beach", 2, known) is None
