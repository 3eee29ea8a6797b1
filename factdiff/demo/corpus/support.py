"""``support-bot`` entries: billing call notes and ``Customer:`` / ``Agent:`` transcripts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from random import Random

from factdiff.demo.corpus.parties import _Party
from factdiff.demo.corpus.phrasing import (
    _date_text,
    _money,
    _paragraphs,
    _pick,
    _round,
    _sprinkle,
    _swap,
    _tool,
    _when,
)
from factdiff.demo.corpus.tables import DISPUTE_REASONS, DISPUTED_ITEMS, SUPPORT_ASIDES
from factdiff.demo.corpus.timekeeping import _add_months, _business_days_after, _from_local, _local


@dataclass(frozen=True)
class _Call:
    """What every support call note starts from."""

    party: _Party
    instant: datetime
    day: date
    invoice_id: str
    memo_id: str


def _cash(rng: Random, call: _Call, amount: Decimal) -> str:
    """An amount in the customer's billing currency."""
    return _money(rng, amount, call.party.zone.currency)


def _support_opener(rng: Random, call: _Call, total: str) -> str:
    p = call.party
    return _pick(
        rng,
        (
            "Customer {cid} ({company}) called {when} regarding invoice {inv} totaling {total}.",
            "{Role} {person} from {company} (customer {cid}) called in {when} about invoice "
            "{inv}, which has a total of {total}.",
            "Inbound call {when}: {company}, customer {cid}, about invoice {inv} "
            "(invoice total {total}).",
            "Spoke with {role} {person} at {company} ({cid}) {when} about {inv}, an invoice "
            "totaling {total}.",
        ),
        cid=p.account_id,
        company=p.company,
        when=_when(rng, p.zone, call.instant),
        inv=call.invoice_id,
        total=total,
        role=p.role,
        Role=p.role[0].upper() + p.role[1:],
        person=p.person,
    )


def _named(opener: str, party: _Party) -> bool:
    return party.person in opener


def _caller(rng: Random, party: _Party) -> str:
    return _pick(
        rng,
        ("Caller was their {role} {person}.", "I spoke with their {role}, {person}."),
        role=party.role,
        person=party.person,
    )


def _dispute_note(rng: Random, call: _Call) -> tuple[list[str], tuple[str, ...]]:
    total = Decimal(rng.randrange(24, 1200) * 50)
    disputed = _round(total * Decimal(rng.uniform(0.08, 0.35)), 50)
    rest = total - disputed
    line = rng.randrange(1, 9)
    item_day = call.day - timedelta(days=rng.randrange(5, 30))
    days = rng.choice((5, 7, 10, 14))
    deadline = _business_days_after(call.day, days)
    memo_day = _business_days_after(call.day, 1) if rng.random() < 0.6 else call.day
    p, d = call.party, call.day
    opener = _support_opener(rng, call, _cash(rng, call, total))
    sentences = [opener]
    if not _named(opener, p):
        sentences.append(_caller(rng, p))
    sentences.append(
        _pick(
            rng,
            (
                "Customer disputes line item {line} ({amt} for {item} on {when}), saying it "
                "{reason}.",
                "They disputed {amt} on line {line} ({item}, {when}) because it {reason}.",
                "Disputed: {amt} on line {line} ({item} from {when}), which the customer says "
                "{reason}.",
            ),
            line=line,
            amt=_cash(rng, call, disputed),
            item=rng.choice(DISPUTED_ITEMS),
            when=_date_text(rng, item_day, d),
            reason=rng.choice(DISPUTE_REASONS),
        )
    )
    if len(sentences) == 3:
        _swap(rng, sentences, 1)
    sentences.append(
        _pick(
            rng,
            (
                "Customer agreed to pay {rest} (the invoice total minus the disputed line) "
                "within {n} business days (by {deadline}) if we issue a credit memo for {amt} "
                "by EOD {memo}.",
                "They will pay the undisputed {rest} within {n} business days, so by "
                "{deadline}, provided the {amt} credit memo goes out by end of day {memo}.",
                "Agreed resolution: we credit {amt} by EOD {memo}; they pay the remaining "
                "{rest} within {n} business days, deadline {deadline}.",
            ),
            rest=_cash(rng, call, rest),
            n=days,
            deadline=_date_text(rng, deadline, d),
            amt=_cash(rng, call, disputed),
            memo=_date_text(rng, memo_day, d),
        )
    )
    sentences.append(
        rng.choice(
            (
                "Agent committed to the credit memo.",
                "I confirmed we would issue it.",
                "Credit approved on my side.",
            )
        )
    )
    sentences.append(
        _tool(
            rng,
            "invoice.adjust",
            {
                "invoice_id": call.invoice_id,
                "adjustment_amount": -disputed,
                "reason": f"disputed_line_item_{line}",
                "notes": f"see customer call {d.isoformat()}",
            },
            {"credit_memo_id": call.memo_id},
        )
    )
    return sentences, ("billing", "dispute")


def _refund_note(rng: Random, call: _Call) -> tuple[list[str], tuple[str, ...]]:
    amount = Decimal(rng.randrange(15000, 900000)) / 100
    charged = call.day - timedelta(days=rng.randrange(1, 12))
    days = rng.choice((3, 5, 7))
    deadline = _business_days_after(call.day, days)
    p, d = call.party, call.day
    opener = _pick(
        rng,
        (
            "{company} ({cid}) called {when}: their card was charged twice for invoice {inv} "
            "totaling {amt}.",
            "Customer {cid} ({company}) reached us {when} about a duplicate charge on invoice "
            "{inv}, total {amt}.",
        ),
        company=p.company,
        cid=p.account_id,
        when=_when(rng, p.zone, call.instant),
        inv=call.invoice_id,
        amt=_cash(rng, call, amount),
    )
    tool = _tool(
        rng,
        "payments.refund",
        {"invoice_id": call.invoice_id, "amount": amount, "reason": "duplicate_charge"},
        {"credit_memo_id": call.memo_id},
    )
    sentences = [
        opener,
        _caller(rng, p),
        _pick(
            rng,
            (
                "Both charges posted on {day}; our payment log confirms the second one was a "
                "retry after a gateway timeout.",
                "The duplicate posted on {day}. I checked the ledger and the second capture "
                "came from a retried request.",
            ),
            day=_date_text(rng, charged, d),
        ),
        _pick(
            rng,
            (
                "Refunded the duplicate {amt}. Told them to expect it within {n} business "
                "days, by {deadline}.",
                "Issued a refund of {amt}; it should reach their account by {deadline} "
                "({n} business days).",
            ),
            amt=_cash(rng, call, amount),
            n=days,
            deadline=_date_text(rng, deadline, d),
        ),
        tool,
    ]
    return sentences, ("billing", "refund")


def _plan_note(rng: Random, call: _Call) -> tuple[list[str], tuple[str, ...]]:
    parts = rng.choice((2, 3, 4))
    installment = Decimal(rng.randrange(10, 400) * 100)
    total = installment * parts
    p, d = call.party, call.day
    overdue = d - timedelta(days=rng.randrange(10, 45))
    first = _business_days_after(d, rng.choice((3, 5, 10)))
    style = rng.random()
    later = [_date_text(rng, _add_months(first, i), d, style) for i in range(1, parts)]
    due_text = later[0] if len(later) == 1 else ", ".join(later[:-1]) + " and " + later[-1]
    sentences = [
        _support_opener(rng, call, _cash(rng, call, total)),
        _pick(
            rng,
            (
                "The invoice has been overdue since {day} and they cannot pay it in one go "
                "this quarter.",
                "It went past due on {day}; cash is tight after a delayed customer payment "
                "on their side.",
            ),
            day=_date_text(rng, overdue, d),
        ),
        _pick(
            rng,
            (
                "We set up a payment plan of {n} installments of {inst}; the first is due by "
                "{first}, the others on {rest}.",
                "Agreed a {n}-part payment plan at {inst} each. First installment by {first}, "
                "then {rest}.",
            ),
            n=parts,
            inst=_cash(rng, call, installment),
            first=_date_text(rng, first, d, style),
            rest=due_text,
        ),
        _pick(
            rng,
            (
                "Late fees are paused while the plan is current.",
                "If an installment is missed the full balance becomes due again.",
            ),
        ),
        _tool(
            rng,
            "billing.create_payment_plan",
            {
                "invoice_id": call.invoice_id,
                "installments": parts,
                "installment_amount": installment,
                "first_due": first.isoformat(),
            },
            {},
        ),
    ]
    if not _named(sentences[0], p):
        sentences.insert(1, _caller(rng, p))
    return sentences, ("billing", "payment-plan")


def _credit_note(rng: Random, call: _Call) -> tuple[list[str], tuple[str, ...]]:
    fee = Decimal(rng.randrange(20, 400) * 50)
    percent = rng.choice((5, 10, 15, 25))
    credit = fee * percent / 100
    hours = rng.randrange(2, 9)
    outage = call.day - timedelta(days=rng.randrange(2, 14))
    p, d = call.party, call.day
    sentences = [
        _pick(
            rng,
            (
                "{Role} {person} of {company} ({cid}) called {when} asking for an SLA credit "
                "after our outage on {day}.",
                "Customer {cid} ({company}) called {when}: they were down for {hours} hours "
                "during our incident on {day} and want the SLA credit.",
            ),
            Role=p.role[0].upper() + p.role[1:],
            person=p.person,
            company=p.company,
            cid=p.account_id,
            when=_when(rng, p.zone, call.instant),
            day=_date_text(rng, outage, d),
            hours=hours,
        ),
        _pick(
            rng,
            (
                "Their monthly fee is {fee}; the contract gives {pct}% back for that tier of "
                "breach, so the credit is {credit}.",
                "SLA schedule says {pct}% of the {fee} monthly fee, which comes to {credit}.",
            ),
            fee=_cash(rng, call, fee),
            pct=percent,
            credit=_cash(rng, call, credit),
        ),
        _pick(
            rng,
            (
                "The credit will be applied to their next invoice, {inv}.",
                "It goes against invoice {inv}, which has not been sent yet.",
            ),
            inv=call.invoice_id,
        ),
        rng.choice(
            (
                "The outage window they described matches our status page history.",
                "I checked the incident report and their region was affected for the full time.",
            )
        ),
        _tool(
            rng,
            "credits.issue",
            {
                "customer_id": p.account_id,
                "amount": credit,
                "reason": "sla_breach",
                "apply_to": call.invoice_id,
            },
            {"credit_memo_id": call.memo_id},
        ),
    ]
    if not _named(sentences[0], p):
        sentences.insert(1, _caller(rng, p))
    return sentences, ("billing", "sla-credit")


def _fee_note(rng: Random, call: _Call) -> tuple[list[str], tuple[str, ...]]:
    total = Decimal(rng.randrange(40, 800) * 25)
    fee = rng.choice((Decimal(25), Decimal(50), Decimal(75), _round(total * Decimal("0.015"), 5)))
    p, d = call.party, call.day
    due = d - timedelta(days=rng.randrange(6, 20))
    paid = due + timedelta(days=rng.randrange(1, 4))
    sentences = [
        _support_opener(rng, call, _cash(rng, call, total)),
        _pick(
            rng,
            (
                "It was due on {due} and they paid in full on {paid}; a late fee of {fee} was "
                "added in between.",
                "Payment landed on {paid}, after the {due} due date, and the system charged a "
                "{fee} late fee.",
            ),
            due=_date_text(rng, due, d),
            paid=_date_text(rng, paid, d),
            fee=_cash(rng, call, fee),
        ),
        rng.choice(
            (
                "The delay was a bank holiday on their side and this is their first late "
                "payment in three years, so I waived the fee.",
                "Good payment history, so I waived the fee as a one-off and told them it will "
                "not be repeated.",
            )
        ),
        _tool(
            rng,
            "invoice.waive_fee",
            {"invoice_id": call.invoice_id, "fee_amount": fee},
            {"credit_memo_id": call.memo_id},
        ),
    ]
    if not _named(sentences[0], p):
        sentences.insert(1, _caller(rng, p))
    return sentences, ("billing", "fee-waiver")


def _support_dialogue(rng: Random, call: _Call) -> tuple[str, tuple[str, ...]]:
    total = Decimal(rng.randrange(40, 1000) * 50)
    disputed = _round(total * Decimal(rng.uniform(0.1, 0.3)), 50)
    days = rng.choice((5, 7, 10))
    p, d = call.party, call.day
    deadline = _business_days_after(d, days)
    memo_day = _business_days_after(d, 1)
    item_day = d - timedelta(days=rng.randrange(5, 30))
    when = _when(rng, p.zone, call.instant).split(" ", 1)[1]
    lines = [
        f"Call transcript, customer {p.account_id} ({p.company}), {when}.",
        "Agent: Thanks for calling billing support. Who am I speaking with?",
        f"Customer: Hi, this is {p.person}, {p.role} at {p.company}.",
        "Agent: Thanks. Can you confirm the customer ID on the account?",
        f"Customer: Sure, it's {p.account_id}.",
        "Agent: Got it. How can I help today?",
        f"Customer: I'm calling about invoice {call.invoice_id}. The total is "
        f"{_cash(rng, call, total)} and there's a line on it we never agreed to.",
        "Agent: I have it open. Which line is it?",
        f"Customer: Line {rng.randrange(1, 9)}, the {_cash(rng, call, disputed)} for "
        f"{rng.choice(DISPUTED_ITEMS)}. That {rng.choice(DISPUTE_REASONS)}. We dispute it.",
        f"Agent: I see the charge dated {_date_text(rng, item_day, d)}. "
        + rng.choice(
            (
                "Do you have anything in writing about it?",
                "Did anyone on your side sign off on it?",
            )
        ),
        "Customer: "
        + rng.choice(
            (
                "Only the original order form, and it isn't on there.",
                "No. Nobody here approved it, I checked with the team this morning.",
                "I can forward the email thread if that helps.",
            )
        ),
        "Agent: Understood. I can credit that line. If we do, can you pay the rest on time?",
        f"Customer: Yes. We'd pay the remaining {_cash(rng, call, total - disputed)} within {days} "
        "business days.",
        f"Agent: That puts your payment deadline at {_date_text(rng, deadline, d)}. I'll issue "
        f"a credit memo for {_cash(rng, call, disputed)} by EOD {_date_text(rng, memo_day, d)}.",
        f"Customer: That works. Please send it to {p.email}.",
        "Agent: Will do. I'm making the adjustment now... done, the credit memo number is "
        f"{call.memo_id}.",
        "Customer: Great, thank you. Do you need anything else from me?",
        "Agent: No, that's everything. The corrected balance will show in your portal too.",
        "Customer: " + rng.choice(("Perfect, thanks for sorting it out quickly.", "Thanks, bye.")),
        _tool(
            rng,
            "invoice.adjust",
            {"invoice_id": call.invoice_id, "adjustment_amount": -disputed, "reason": "dispute"},
            {"credit_memo_id": call.memo_id},
        ),
    ]
    return "\n".join(lines), ("billing", "dispute", "transcript")


SUPPORT_NOTES: tuple[Callable[[Random, _Call], tuple[list[str], tuple[str, ...]]], ...] = (
    _dispute_note,
    _dispute_note,
    _refund_note,
    _plan_note,
    _credit_note,
    _fee_note,
)


def _support_entry(
    rng: Random, day: date, parties: Sequence[_Party]
) -> tuple[datetime, str, tuple[str, ...]]:
    party = rng.choice(parties)
    instant = _from_local(party.zone, day, rng.randrange(8, 18), rng.randrange(60))
    local_day = _local(party.zone, instant)[0].date()
    call = _Call(
        party=party,
        instant=instant,
        day=local_day,
        invoice_id=f"INV-{rng.randrange(1000, 99999)}",
        memo_id=f"CM-{rng.randrange(1000, 9999)}",
    )
    if rng.random() < 0.15:
        content, tags = _support_dialogue(rng, call)
        return instant, content, tags
    sentences, tags = rng.choice(SUPPORT_NOTES)(rng, call)
    return instant, _paragraphs(rng, _sprinkle(rng, sentences, SUPPORT_ASIDES)), tags
