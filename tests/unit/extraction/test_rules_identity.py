"""The rules extractor's identity names what it reads.

Hot entries keep the record the rules made of them when they were added, and the extraction
cache keeps a source's record for the retry; demotion takes either as the record its
extractor would make when the identity matches. So every change to what the rules extract
needs a new identity, else records made by older rules are taken for the new rules' and a
summary extracted by the new rules is diffed against a source the old rules read. This test
pins the identity to a digest of the rules' records of a fixed corpus (a tripwire: a change
the corpus does not exercise passes it).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from pathlib import Path

from factdiff.extraction.rules import RulesExtractor
from factdiff.schema.builtin import builtin_schema

IDENTITY = "rules/10"
DIGEST = "288e752c5bb573d0dd008b6339185b9992ed9f631d193434a86e7dbda17114d1"
"""sha256 of the records below, made by the rules named ``IDENTITY`` under the built-in
schemas (a built-in schema's new definition moves it too)."""

WORKED = Path(__file__).resolve().parents[2] / "fixtures" / "worked_example"
SENTENCES = (
    "Daniel Okafor reports order ORD-5521 arrived damaged on March 3, 2026.",
    "The agent refused the refund and offered a transfer of $1,249.00 (20% off).",
    "Sorry, I couldn't make the reservation. Your visit to the apartment has been scheduled.",
    "I need a cab to the airport. OK, it's on its way and the transfer was initiated.",
    "I have cancelled order #W1234. Your order has been cancelled.",
    "Great, can you book it for me. Just confirming your ride; I can reserve a table.",
    "Your reservation has been made. Shall I book the car? Yes. Your reservation is made.",
    "Please confirm to book a cab. That is confirmed. I couldn't book it. I couldn't book that "
    "either.",
    "The agent will escalate the ticket and waive the late fee.",
    "You are now confirmed. I need a bus ticket back. You are now confirmed.",
    "Your cab is on it's way, your visit is planned and the payment went thru.",
    "I've setup your transfer and it is now processing. I have successfully scheduled your "
    "apartment visit, I was able to successfully book the room and I've reserve your seat. "
    "Sorry, I couldnot buy the ticket. Kindly book a table for me. Pleas confirm to reserve "
    "a car.",
    "I couldn't make the appointment. Will you schedule an appointment at 3? I couldn't make "
    "the appointment.",
    "Card not charged — we refunded the order. Not urgent - the agent will escalate the ticket. "
    "The transfer takes a day; I was able to process that for you. Your transfer process is "
    "started. Your transfer of $1,340.50 to Grace has been initiated. The bus has 1 transfer "
    "on the way. Your buses are booked. Your 2 transfers of $100 were successful.",
    "I managed to buy your tickets. Sorry, the reservation did not work. That appointment was "
    "unavailable. Your cab is headed your way. The tickets are yours. The transfer I have "
    "just initiated takes a day. Aiko Tanaka's Osaka flight was cancelled and we declined "
    "because the storm is late.",
    "A refund of $17.99 has been processed. The exchange has been successfully requested. The "
    "payment for your reservation was declined. The chargeback for order 7781-AB was issued.",
    "Order 555-0147 shipped; call customer at 555-0148. Refund of $45.00 processed. I issued a "
    "one-month credit and booked your cab and the same. The customer accepted a one-month "
    "credit. Balance on account 88-1102 is (1,250.00).",
    "Lena Fischer (Alpenblick GmbH) disputes INV-7781 ($4,210.00 total). Errors 09:12-09:26 UTC.",
    "Down since Sat 8 pm (acct 4471-220); escalated case 88213 to tier 2.",
    "Invoice INV-7001 is due on March 10 and the replacement ships by next Tuesday.",
    "Call Nordlys AS at +47 22 12 34 56 or mail ana.ruiz@example.com before 5 pm.",
    "two thousand three hundred eighty dollars and fifty cents; balance (1,250.00)",
    "How about A Madea Family Funeral, Auntie Mame, or Dr. Strangelove? **Skin Tone:** Dark. "
    "I'm headed to Willard Hicks; Burma Ruby Burmese Cuisine is a restaurant like Charlie Chan "
    "and a great 4 star is Hilton Philadelphia.",
    "Billing confirmed INV-2231 was paid; I confirmed with billing. Replacement ships next "
    "Tuesday, the parcel left the warehouse and your order is still in transit. Okafor turned "
    "down the upgrade offer; we called it off and wrote off the $12 fee. We agreed to waive the "
    "late fee and she'll pay the rest tomorrow. Refunded $40 to the Amex x1009; a table for "
    "four at 7.30pm. The refund of $47.49 goes back to the card; it will be credited. The "
    "account is on hold until paid; send me the number once booked. Lena Fischer (Head of "
    "Finance, Alpenblick GmbH) called. We offered the customer a voucher.",
    "Agent Priya Raman called customer Lena Fischer of Alpenblick GmbH; Bo Chen (technician) "
    "met Ana Ruiz, our rep, at the Bank of Montreal Ltd. Meeting with Globex Corporation's "
    "CFO, Linda Park. Olga cancelled SUB-771; confirmed by agent Luis Romero, who confirmed "
    "the cancellation. The customer, Mrs. Olga Petrova, paged on-call engineer Priya Shah. "
    "We will issue the credit memo due by April 10, and he will pay the rest by April 30. "
    "What about Gloria Bell? It has a 6.7 star rating. Play Kara Kul; Bob Sang is a great "
    "Korean joint at 2603 Camino Ramon Ste 278. Akira Suzuki met Hiroshi Sato.",
    "I also found Family, Gloria Bell, and Green Book, or the album A Star is Born Soundtrack "
    "and her album Stars Dance. I'm looking for Comfort Food. The technician turned down the "
    "volume on the alarm panel. The first available Chinese restaurant in the centre is Charlie "
    "Chan. Bo Sang is amazing and cheap. I recommend Caffe Uno. Book a table at Rosie "
    "Mccann's for March 2nd; I'm driving to Ana Ruiz's house. Deployed v2.4.0 at 14:00; errors "
    "rose, so we rolled back to v2.3.1. "
    "Rolled back from version 2.5.0-rc.1 to release 2.4, and re-released 4.2.1 on 12.03.24. "
    "Mrs. Petrova confirmed service restored. How about Lena Moss, located at 12 Mill Road?",
    '{"name": "reset_password", "arguments": {"user_id": "u-81", "ttl_minutes": 30}}',
)


def _corpus() -> list[str]:
    return [*(p.read_text(encoding="utf-8") for p in sorted(WORKED.glob("*.txt"))), *SENTENCES]


def _digest() -> str:
    extractor = RulesExtractor()
    records = [
        extractor.extract(text, builtin_schema(name), date(2026, 3, 1)).to_json()
        for text in _corpus()
        for name in ("generic", "customer_service")
    ]
    for record in records:
        record.pop("extractor")  # the digest is of what was read, not of the name
    blob = json.dumps(records, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def test_the_identity_changes_with_what_the_rules_extract() -> None:
    digest = _digest()
    assert (RulesExtractor.identity, digest) == (IDENTITY, DIGEST), (
        "the rules extractor's output changed: give RulesExtractor a new identity (after "
        f"{RulesExtractor.identity}) and set IDENTITY to it and DIGEST to {digest!r}"
    )
