"""``sales-agent`` entries: discovery, negotiation, renewal and closing call notes."""

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
from factdiff.demo.corpus.tables import COMPETITORS, SALES_ASIDES, SALES_PAINS
from factdiff.demo.corpus.timekeeping import (
    _business_days_after,
    _from_local,
    _local,
    _month_end,
    _next_weekday,
)


@dataclass(frozen=True)
class _Deal:
    """One opportunity: who, how many seats, at what price and discount, closing when."""

    party: _Party
    opportunity_id: str
    seats: int
    list_value: Decimal
    discount: int
    instant: datetime
    day: date
    close: date
    follow_up: datetime

    @property
    def value(self) -> Decimal:
        return _round(self.list_value * (100 - self.discount) / 100, 100)

    @property
    def currency(self) -> str:
        return self.party.zone.currency


def _deal(rng: Random, day: date, parties: Sequence[_Party]) -> _Deal:
    party = rng.choice(parties)
    instant = _from_local(party.zone, day, rng.randrange(8, 18), rng.choice((0, 15, 30, 45)))
    local_day = _local(party.zone, instant)[0].date()
    seats = rng.randrange(2, 60) * 25
    per_seat = rng.choice((96, 144, 192, 240, 360))
    follow_day = _business_days_after(local_day, rng.randrange(2, 8))
    return _Deal(
        party=party,
        opportunity_id=f"OPP-{rng.randrange(10000, 99999)}",
        seats=seats,
        list_value=Decimal(seats * per_seat),
        discount=rng.choice((5, 8, 10, 12, 15, 18, 20)),
        instant=instant,
        day=local_day,
        close=_month_end(local_day + timedelta(days=rng.randrange(14, 75))),
        follow_up=_from_local(party.zone, follow_day, rng.randrange(9, 17), rng.choice((0, 30))),
    )


def _sales_opener(rng: Random, deal: _Deal) -> str:
    p = deal.party
    return _pick(
        rng,
        (
            "Spoke with {person}, {title} at {company} ({acct}), {when}.",
            "Call with {person} ({title}, {company}, account {acct}) {when}.",
            "Met with {person} ({title}) from {company} {when}. Account {acct}.",
        ),
        person=p.person,
        title=p.role,
        company=p.company,
        acct=p.account_id,
        when=_when(rng, p.zone, deal.instant),
    )


def _contact_line(rng: Random, p: _Party) -> str:
    return _pick(
        rng,
        (
            "Contact: {email}, {phone}.",
            "Best reached at {email} or {phone}.",
            "Direct line {phone}; email {email}.",
        ),
        email=p.email,
        phone=p.phone,
    )


def _follow_up(rng: Random, deal: _Deal, what: str) -> str:
    when = _when(rng, deal.party.zone, deal.follow_up)
    return _pick(
        rng,
        (
            "Next meeting booked {when} for {what}.",
            "Follow-up is {what}, scheduled {when}.",
            "Booked {what} {when}.",
        ),
        when=when,
        what=what,
    )


def _crm(rng: Random, deal: _Deal, stage: str, amount: Decimal, close: date | None = None) -> str:
    """The CRM update that ends a sales note; ``close`` defaults to the expected close date."""
    args: dict[str, object] = {
        "opportunity_id": deal.opportunity_id,
        "stage": stage,
        "amount": amount,
    }
    if close is not None or rng.random() < 0.5:
        args["close_date"] = (close or deal.close).isoformat()
    return _tool(rng, "crm.update_opportunity", args, {})


def _discovery_note(rng: Random, deal: _Deal) -> tuple[list[str], str]:
    cur, d = deal.currency, deal.day
    sentences = [
        _sales_opener(rng, deal),
        f"Discovery call: {rng.choice(SALES_PAINS)}.",
        _pick(
            rng,
            (
                "They are looking at {seats} seats.",
                "Scope is {seats} seats to start, more if the pilot goes well.",
            ),
            seats=f"{deal.seats:,}",
        ),
        _pick(
            rng,
            (
                "Estimated deal value {value} at list; opened {opp}.",
                "Opened {opp} with a deal size of {value} before any discount.",
            ),
            value=_money(rng, deal.list_value, cur, short=rng.random() < 0.4),
            opp=deal.opportunity_id,
        ),
        f"They want to sign by {_date_text(rng, deal.close, d)} to use this year's budget.",
        _follow_up(rng, deal, "a product demo"),
        _contact_line(rng, deal.party),
        _crm(rng, deal, "discovery", deal.list_value),
    ]
    _swap(rng, sentences, 5)
    return sentences, "discovery"


def _negotiation_note(rng: Random, deal: _Deal) -> tuple[list[str], str]:
    cur, d = deal.currency, deal.day
    sentences = [
        _sales_opener(rng, deal),
        _pick(
            rng,
            (
                "Negotiation on {opp}: {seats} seats, list price {list}.",
                "We are in negotiation on {opp} for {seats} seats ({list} at list).",
            ),
            opp=deal.opportunity_id,
            seats=f"{deal.seats:,}",
            list=_money(rng, deal.list_value, cur),
        ),
        _pick(
            rng,
            (
                "I offered a {pct}% discount for a two-year term, which brings the deal value "
                "to {value}.",
                "They accepted {pct}% off list, so the deal is now worth {value} per year.",
            ),
            pct=deal.discount,
            value=_money(rng, deal.value, cur, short=rng.random() < 0.3),
        ),
        f"Expected close date {_date_text(rng, deal.close, d)}.",
        _follow_up(rng, deal, "a call with their procurement team"),
        _crm(rng, deal, "negotiation", deal.value),
    ]
    _swap(rng, sentences, 3)
    if rng.random() < 0.5:
        sentences.insert(len(sentences) - 1, _contact_line(rng, deal.party))
    return sentences, "negotiation"


def _renewal_note(rng: Random, deal: _Deal) -> tuple[list[str], str]:
    cur, d = deal.currency, deal.day
    added = rng.randrange(1, min(8, deal.seats // 25)) * 25
    sentences = [
        _sales_opener(rng, deal),
        _pick(
            rng,
            (
                "Renewal of {opp} comes up on {close}; they want to add {added} seats, for "
                "{seats} seats in total.",
                "Expansion at renewal ({opp}): {seats} seats total, {added} more than today. "
                "Renewal date {close}.",
            ),
            opp=deal.opportunity_id,
            close=_date_text(rng, deal.close, d),
            added=added,
            seats=f"{deal.seats:,}",
        ),
        _pick(
            rng,
            (
                "Quoted {value} for the year after a {pct}% loyalty discount.",
                "New contract value {value} with {pct}% off for a multi-year commitment.",
            ),
            value=_money(rng, deal.value, cur),
            pct=deal.discount,
        ),
        rng.choice(
            (
                "Usage is healthy and the admins are happy with support.",
                "They flagged two bugs in the export; I looped in support.",
            )
        ),
        _follow_up(rng, deal, "a contract walkthrough"),
        _crm(rng, deal, "proposal", deal.value),
    ]
    return sentences, "renewal"


def _closed_note(rng: Random, deal: _Deal) -> tuple[list[str], str]:
    cur, d = deal.currency, deal.day
    won = rng.random() < 0.7
    start = _next_weekday(deal.day, 0)
    outcome = (
        f"Closed won: they signed {deal.opportunity_id} today for {deal.seats:,} seats at "
        f"{_money(rng, deal.value, cur)} a year, {deal.discount}% below list. Start date "
        f"{_date_text(rng, start, d)}."
        if won
        else f"Closed lost on {deal.opportunity_id}: they went with {rng.choice(COMPETITORS)}. "
        f"Our final offer was {_money(rng, deal.value, cur)} for {deal.seats:,} seats with "
        f"{deal.discount}% discount."
    )
    sentences = [
        _sales_opener(rng, deal),
        outcome,
        "Contract term is two years with annual billing; kickoff with their admins will be "
        "scheduled by onboarding."
        if won
        else "Main reasons were price and their rollout timeline. Asked to revisit in two "
        "quarters; they were open to it.",
        _contact_line(rng, deal.party),
        _crm(rng, deal, "closed_won" if won else "closed_lost", deal.value, close=d),
    ]
    return sentences, "closed-won" if won else "closed-lost"


def _sales_dialogue(rng: Random, deal: _Deal) -> tuple[str, tuple[str, ...]]:
    p, cur, d = deal.party, deal.currency, deal.day
    when = _when(rng, p.zone, deal.instant).split(" ", 1)[1]
    lines = [
        f"Call transcript, {p.company} ({p.account_id}), opportunity {deal.opportunity_id}, "
        f"{when}.",
        f"Customer: Hi, it's {p.person}, {p.role} at {p.company}. We reviewed the proposal.",
        "Agent: Thanks for making the time. What did the team think?",
        "Customer: "
        + rng.choice(
            (
                "The product is a fit. The rollout plan looked realistic too.",
                "Everyone liked the demo. Our admins want SSO on day one, which you have.",
                "Good overall. A couple of questions on data residency, but nothing blocking.",
            )
        ),
        f"Agent: Great. As a reminder it covers {deal.seats:,} seats at "
        f"{_money(rng, deal.list_value, cur)} list per year.",
        f"Customer: The number is the problem. We need at least {deal.discount}% off to get "
        "it past finance.",
        "Agent: What's driving that, budget or a competing quote?",
        "Customer: "
        + rng.choice(
            (
                "Budget. The line item was set before we knew the seat count.",
                "Honestly both. We have a cheaper quote, but we prefer you.",
            )
        ),
        f"Agent: I can do {deal.discount}% if you sign by {_date_text(rng, deal.close, d)}. "
        f"That makes the deal value {_money(rng, deal.value, cur)}.",
        f"Customer: That works for us. Send the revised quote to {p.email}, please.",
        "Agent: It'll be in your inbox today. Can we review it together "
        f"{_when(rng, p.zone, deal.follow_up)}?",
        f"Customer: Yes. Call me on {p.phone}, I'll be at my desk.",
        "Agent: Perfect, booked. I'll add your procurement contact to the invite.",
        "Customer: Thanks. Talk then.",
        _crm(rng, deal, "negotiation", deal.value),
    ]
    return "\n".join(lines), ("sales", "negotiation", "transcript")


SALES_NOTES: tuple[Callable[[Random, _Deal], tuple[list[str], str]], ...] = (
    _discovery_note,
    _negotiation_note,
    _negotiation_note,
    _renewal_note,
    _closed_note,
)


def _sales_entry(
    rng: Random, day: date, parties: Sequence[_Party]
) -> tuple[datetime, str, tuple[str, ...]]:
    deal = _deal(rng, day, parties)
    if rng.random() < 0.12:
        content, tags = _sales_dialogue(rng, deal)
        return deal.instant, content, tags
    sentences, stage = rng.choice(SALES_NOTES)(rng, deal)
    _sprinkle(rng, sentences, SALES_ASIDES)
    return deal.instant, _paragraphs(rng, sentences), ("sales", stage)
