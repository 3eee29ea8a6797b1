"""A deterministic corpus of realistic agent memory entries for ``factdiff demo``.

Three agents, each writing in its domain and extracted with its schema:

* ``support-bot`` / ``customer_service``: billing call notes (disputes, duplicate charges,
  payment plans, SLA credits, late-fee waivers), some as ``Customer:`` / ``Agent:`` transcripts;
* ``ops-agent`` / ``operations``: incident notes and timelines, changes, capacity fixes;
* ``sales-agent`` / ``sales``: discovery, negotiation, renewal and closing call notes.

``generate_corpus(count, seed, start)`` is a pure function of its arguments: one seeded
``random.Random``, no wall clock, no locale, no time zone database (US and EU summer time are
computed by their rules). Each entry states its facts plainly (ids, amounts, dates, times with
zones, people, tool calls) so that a reader could list them. Amounts add up: a disputed line
plus the remaining payment is the invoice total, a discount applied to the list price gives the
deal value, an incident's start plus its downtime is its resolution time.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from random import Random

__all__ = ["AGENTS", "WORKED_EXAMPLE", "DemoEntry", "generate_corpus"]

# --------------------------------------------------------------------------- data tables

AGENTS: tuple[tuple[str, str], ...] = (
    ("support-bot", "customer_service"),
    ("ops-agent", "operations"),
    ("sales-agent", "sales"),
)
"""(agent id, schema name) of every demo agent."""

SPAN_DAYS = 56
"""Entries are spread over this many days (eight weeks) from ``start``."""


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


MONTHS = _words(
    "January February March April May June July August September October November December"
)
WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")

FIRST_NAMES = _words(
    "Marcus Priya Dana Tomás Aisha Kenji Sofia Liam Grace Mateo Hannah Omar Elena Daniel Mei "
    "Jonas Fatima Lucas Nora Ravi Chloe Andre Ingrid Samuel Yuki Beatriz Patrick Leila Victor "
    "Ana Rebecca Felix Zanele Hugo Maya"
)
LAST_NAMES = _words(
    "Whitfield Raman Ortega Okafor Tanaka Rossi Brennan Kowalski Fischer Haddad Lindqvist "
    "Moreau Nakamura Patel Schmidt Álvarez Dubois Mensah Novak Weber Costa Byrne Kim Hughes "
    "Iyer Morales Adeyemi Larsen Sato Gallagher Castillo Bauer Nguyen Petrov Quinn"
)
COMPANY_STEMS = (
    "Kestrel Analytics",
    "Brightline Logistics",
    "Harborview Dental",
    "Bluepeak Software",
    "Copperleaf Health",
    "Lumen Freight",
    "Oakridge Manufacturing",
    "Pinecrest Labs",
    "Redwood Retail",
    "Silverline Media",
    "Tidewater Marine",
    "Vantage Robotics",
    "Willowmere Hotels",
    "Cobalt Ridge Energy",
    "Northgate Insurance",
    "Summit Outdoor",
    "Granite Peak Builders",
    "Evergreen Pharmacy",
    "Ironclad Security",
    "Sterling Foods",
    "Quillon Legal",
    "Maplewood Clinics",
    "Orbital Print",
    "Saltmarsh Brewing",
    "Fernhill Architects",
    "Juniper Freightways",
    "Alder Street Bakery",
    "Northwind Traders",
    "Halcyon Travel",
    "Meridian Textiles",
)
US_SUFFIXES = ("Corp", "Inc", "LLC", "Inc", "Corporation")
EU_SUFFIXES = ("GmbH", "AG", "BV", "SA")
UK_SUFFIXES = ("Ltd", "plc", "LLP")

SUPPORT_ROLES = (
    "CFO",
    "CTO",
    "COO",
    "finance director",
    "AP manager",
    "office manager",
    "billing manager",
    "procurement lead",
    "operations director",
)
SALES_TITLES = (
    "VP of Operations",
    "Head of IT",
    "Director of Procurement",
    "CFO",
    "IT Manager",
    "Head of Customer Support",
    "COO",
    "Director of Engineering",
    "VP of Sales",
)
OPS_ROLES = ("on-call engineer", "SRE lead", "platform engineer", "database engineer")

DISPUTED_ITEMS = (
    "engineering hours",
    "an onsite training day",
    "rush shipping",
    "the premium support add-on",
    "the data migration package",
    "additional user licenses",
    "API overage charges",
    "consulting hours",
)
DISPUTE_REASONS = (
    "was never authorized",
    "was billed twice",
    "exceeds the hours in the signed SOW",
    "was cancelled before delivery",
    "was promised free of charge in the renewal",
)
SUPPORT_ASIDES = (
    "Customer was calm and appreciated the quick turnaround.",
    "I walked them through the line items one by one before we got to the dispute.",
    "Their AP team runs payment batches twice a week, so timing matters to them.",
    "Verified the caller against the contacts on file before discussing the account.",
    "They had already emailed billing about this, but the thread went unanswered.",
    "I apologized for the back-and-forth and confirmed the account is otherwise in good standing.",
    "Their procurement system needs the corrected document before anything is paid.",
    "Noted on the account that any further billing questions should come to this queue.",
    "Tone was tense at the start but settled once the next steps were clear.",
    "They asked that future invoices itemize hours per engineer.",
    "No other open balances on the account.",
    "Flagged to the account manager for awareness.",
    "Caller mentioned they are reviewing vendors next quarter, so goodwill matters here.",
    "They were frustrated about having to chase this twice.",
    "Customer was polite throughout and thanked us for the follow-through.",
    "I explained how credit memos show up on the next statement.",
    "They prefer email over phone for the confirmation.",
)

SERVICES = (
    "api-gateway",
    "payments-api",
    "checkout-web",
    "search-indexer",
    "auth-service",
    "billing-worker",
    "notifications-api",
    "orders-db",
    "payments-db",
    "media-transcoder",
)
SYMPTOMS = (
    "502 errors from {service}",
    "elevated latency and timeouts on {service}",
    "failed logins routed through {service}",
    "a growing queue backlog behind {service}",
    "intermittent 503s on {service}",
)
ROOT_CAUSES = (
    "a connection pool leak introduced in {bad}",
    "a memory regression in {bad} that caused repeated OOM kills",
    "a config change in {bad} that halved the worker count",
    "a retry storm triggered by a timeout default changed in {bad}",
    "an unindexed query shipped in {bad}",
)
FOLLOW_UPS = (
    "add a canary gate on error rate",
    "alert on connection pool saturation",
    "write the postmortem",
    "add a load test for the new code path",
    "tighten the deploy rollback runbook",
)
OPS_ASIDES = (
    "Status page was updated at each stage.",
    "The deploy had passed staging; the failure only showed under production traffic.",
    "Synthetic checks caught it a few minutes before customers reported anything.",
    "Autoscaling added capacity but that only delayed the failure.",
    "We held all other deploys to the service until recovery was confirmed.",
    "Support and account managers were kept updated in the incident channel.",
    "Grafana showed the saturation clearly once we looked at the right panel.",
    "The runbook step for draining traffic worked as written.",
    "No data loss; queued jobs drained on their own after recovery.",
    "Support was told to expect a handful of tickets about failed checkouts.",
    "Dashboards and logs are linked in the incident channel.",
    "Nobody else was paged; the rotation handled it.",
    "Customer impact was limited to retries; no payments were double-processed.",
)

CAPACITY_ASIDES = (
    "Other hosts in the pool are below 60% and trending flat.",
    "Checked the backups first; the latest snapshot is healthy.",
    "Left a note in the rotation handover so the next shift knows.",
    "The dashboards for this pool now have a growth forecast panel.",
    "No customer-facing impact at any point.",
)

SALES_PAINS = (
    "their current tool cannot handle approval workflows across regions",
    "reporting takes their analysts two days every month-end",
    "they are consolidating three legacy systems after an acquisition",
    "their support team has no shared inbox and misses SLAs",
    "audit asked for access logs they cannot produce today",
)
COMPETITORS = ("a cheaper regional vendor", "their incumbent provider", "an in-house build")
SALES_ASIDES = (
    "Good energy on the call; they want to move before their budget freezes.",
    "They are also evaluating two other vendors but we are ahead on integrations.",
    "Their team joined with cameras on and asked sharp questions about data residency.",
    "Pricing was the main topic; features were not in doubt.",
    "They asked whether onboarding is included; I confirmed the standard package is.",
    "IT wants SSO and SCIM from day one.",
    "They mentioned a reorg in their finance team that could slow approvals.",
    "Security review is the likely bottleneck, so I sent the SOC 2 package in advance.",
    "Legal wants our standard MSA redlined by their counsel first.",
    "They asked for two customer references in a similar industry.",
    "Champion is strong but procurement has the final word.",
    "They liked the admin console demo most.",
)


@dataclass(frozen=True)
class _Zone:
    """A time zone as people write it: abbreviations and their UTC offset in hours."""

    standard: str
    summer: str
    offset: int
    rule: str  # "us", "eu" or "none"
    currency: str


ZONES = (
    _Zone("EST", "EDT", -5, "us", "USD"),
    _Zone("CST", "CDT", -6, "us", "USD"),
    _Zone("MST", "MDT", -7, "us", "USD"),
    _Zone("PST", "PDT", -8, "us", "USD"),
    _Zone("GMT", "BST", 0, "eu", "GBP"),
    _Zone("CET", "CEST", 1, "eu", "EUR"),
)
US_ZONES = ZONES[:4]
UTC_ZONE = _Zone("UTC", "UTC", 0, "none", "USD")
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


@dataclass(frozen=True)
class DemoEntry:
    """One memory entry of one demo agent."""

    agent_id: str
    schema: str
    occurred_at: datetime
    content: str
    tags: tuple[str, ...]


WORKED_EXAMPLE = DemoEntry(
    agent_id="support-bot",
    schema="customer_service",
    occurred_at=datetime(2026, 3, 14, 19, 32, tzinfo=UTC),
    content=(
        "Customer cust_482 (Acme Corp) called at 2026-03-14 14:32 EST regarding invoice "
        "INV-9182 totaling $14,250. Customer disputes line item 3 ($2,400 for engineering hours "
        "on March 6) claiming work was not authorized by their CTO Marcus Chen. Customer agreed "
        "to pay $11,850 (full invoice minus disputed line) within 7 business days (by "
        "2026-03-25) if we issue a credit memo for $2,400 by EOD 2026-03-15. Agent committed to "
        "credit memo. Tool call: invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400, "
        "reason='disputed_line_item_3', notes='see customer call 2026-03-14') returned success "
        "with credit_memo_id='CM-3392'."
    ),
    tags=("billing", "dispute", "worked-example"),
)
"""The worked example of the verification issue, exactly as written there."""

# --------------------------------------------------------------------------- time and zones


def _nth_sunday(year: int, month: int, n: int) -> date:
    """The ``n``-th Sunday of a month; ``n = -1`` for the last."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() + 1) % 7)


def _at(day: date, hour: int) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=UTC)


def _is_summer(zone: _Zone, instant: datetime) -> bool:
    """Whether summer time applies to ``instant`` (UTC) in ``zone``, by US or EU rules."""
    year = instant.year
    if zone.rule == "us":
        begin = _at(_nth_sunday(year, 3, 2), 2 - zone.offset)
        end = _at(_nth_sunday(year, 11, 1), 1 - zone.offset)
    elif zone.rule == "eu":
        begin = _at(_nth_sunday(year, 3, -1), 1)
        end = _at(_nth_sunday(year, 10, -1), 1)
    else:
        return False
    return begin <= instant < end


def _offset(zone: _Zone, instant: datetime) -> int:
    return zone.offset + (1 if _is_summer(zone, instant) else 0)


def _local(zone: _Zone, instant: datetime) -> tuple[datetime, str]:
    """Local wall time (naive) of a UTC instant and the zone abbreviation in force."""
    summer = _is_summer(zone, instant)
    wall = instant + timedelta(hours=zone.offset + (1 if summer else 0))
    return wall.replace(tzinfo=None), zone.summer if summer else zone.standard


def _from_local(zone: _Zone, day: date, hour: int, minute: int) -> datetime:
    """The UTC instant of a daytime local wall time (never near a summer-time switch)."""
    instant = datetime.combine(day, time(hour, minute), tzinfo=UTC) - timedelta(hours=zone.offset)
    return instant - timedelta(hours=1) if _is_summer(zone, instant) else instant


def _business_days_after(day: date, count: int) -> date:
    while count > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def _add_months(day: date, months: int) -> date:
    """The same day ``months`` later (the month's last day when it is shorter)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, _month_end(date(year, month, 1)).day))


def _month_end(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1) - timedelta(days=1)


def _next_weekday(day: date, weekday: int) -> date:
    """The first ``weekday`` strictly after ``day``."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)


# --------------------------------------------------------------------------- surface forms


def _date_text(rng: Random, day: date, reference: date, roll: float | None = None) -> str:
    """A date as people write it: ISO, ``March 25, 2026``, ``25 March 2026`` or ``March 25``.

    Pass the same ``roll`` to write several dates of one list in one style.
    """
    roll = rng.random() if roll is None else roll
    if roll < 0.4:
        return day.isoformat()
    if roll < 0.8:
        return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"
    if roll < 0.9 and day.year == reference.year:
        return f"{MONTHS[day.month - 1]} {day.day}"
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _clock(rng: Random, wall: datetime) -> str:
    if rng.random() < 0.5:
        return f"{wall:%H:%M}"
    suffix = "AM" if wall.hour < 12 else "PM"
    return f"{(wall.hour - 1) % 12 + 1}:{wall:%M} {suffix}"


def _when(rng: Random, zone: _Zone, instant: datetime, iso_ok: bool = False) -> str:
    """A date and time with its zone, with its preposition (``at 2026-03-14 14:32 EST``)."""
    wall, abbreviation = _local(zone, instant)
    long_date = f"{MONTHS[wall.month - 1]} {wall.day}, {wall.year}"
    roll = rng.random()
    if iso_ok and roll < 0.15:
        hours = _offset(zone, instant)
        return f"at {wall:%Y-%m-%dT%H:%M}{'-' if hours < 0 else '+'}{abs(hours):02d}:00"
    if roll < 0.35:
        return f"at {wall:%Y-%m-%d %H:%M} {abbreviation}"
    if roll < 0.6:
        return f"on {long_date} at {_clock(rng, wall)} {abbreviation}"
    if roll < 0.8:
        return f"at {_clock(rng, wall)} {abbreviation} on {wall:%Y-%m-%d}"
    return f"at {_clock(rng, wall)} {abbreviation} on {WEEKDAYS[wall.weekday()]}, {long_date}"


def _time_only(zone: _Zone, instant: datetime) -> str:
    wall, abbreviation = _local(zone, instant)
    return f"{wall:%H:%M} {abbreviation}"


def _money(rng: Random, amount: Decimal, currency: str = "USD", short: bool = False) -> str:
    """``$14,250``, ``USD 14,250``, ``14,250 USD``, ``$14,250.00``; ``€12.5k`` when ``short``."""
    symbol = SYMBOLS[currency]
    whole = amount == amount.to_integral_value()
    if short and whole and amount >= 1000 and amount % 100 == 0:
        thousands = (amount / 1000).normalize()
        return f"{symbol}{thousands:f}k"
    number = f"{amount:,.0f}" if whole and rng.random() < 0.85 else f"{amount:,.2f}"
    roll = rng.random()
    if roll < 0.65:
        return f"{symbol}{number}"
    if roll < 0.85:
        return f"{currency} {number}"
    return f"{number} {currency}"


def _duration(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    parts = [f"{hours} hour{'s' if hours > 1 else ''}"] if hours else []
    if rest:
        parts.append(f"{rest} minute{'s' if rest > 1 else ''}")
    return " and ".join(parts) if len(parts) == 2 and rest < 10 else " ".join(parts)


def _plain(amount: Decimal) -> str:
    """A decimal as a tool-call literal: ``-2400``, ``1249.5``."""
    return f"{amount.normalize():f}"


def _jsonable(value: object) -> object:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _tool(rng: Random, name: str, args: dict[str, object], result: dict[str, str]) -> str:
    """A tool call as an agent logs it: call syntax in prose, or a JSON tool log line."""
    if rng.random() < 0.3:
        payload = {
            "tool": name,
            "arguments": {k: _jsonable(v) for k, v in args.items()},
            "result": {"status": "success", **result},
        }
        return "Tool log: " + json.dumps(payload, ensure_ascii=False)
    literals = ", ".join(
        f"{k}={_plain(v) if isinstance(v, Decimal) else repr(v)}" for k, v in args.items()
    )
    outcome = "returned success"
    if result:
        outcome += " with " + ", ".join(f"{k}={v!r}" for k, v in result.items())
    prefix = rng.choice(("Tool call: ", "Ran ", "Called ", "Tool call: "))
    return f"{prefix}{name}({literals}) {outcome}."


def _pick(rng: Random, templates: Sequence[str], **values: object) -> str:
    return rng.choice(templates).format(**values)


def _round(amount: Decimal, step: int) -> Decimal:
    return (amount / step).quantize(Decimal(1), ROUND_HALF_UP) * step


def _email_local(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z.]", "", ascii_name.lower().replace(" ", "."))


def _paragraphs(rng: Random, sentences: list[str]) -> str:
    """Join sentences into one or two paragraphs, as notes are typed."""
    if len(sentences) > 5 and rng.random() < 0.35:
        cut = rng.randrange(3, len(sentences) - 1)
        return " ".join(sentences[:cut]) + "\n\n" + " ".join(sentences[cut:])
    return " ".join(sentences)


def _swap(rng: Random, sentences: list[str], i: int) -> None:
    """Sometimes swap two sentences whose order is free: notes don't follow one order."""
    if rng.random() < 0.4:
        sentences[i], sentences[i + 1] = sentences[i + 1], sentences[i]


ASIDE_COUNTS = (0, 1, 1, 2, 2, 3, 4, 6)
"""How many asides a note gets: most a few, some none, some many (longer entries)."""


def _sprinkle(rng: Random, sentences: list[str], pool: Sequence[str]) -> list[str]:
    """Insert a few fact-free asides between the sentences (never before the first)."""
    for aside in rng.sample(pool, min(len(pool), rng.choice(ASIDE_COUNTS))):
        sentences.insert(rng.randrange(1, len(sentences) + 1), aside)
    return sentences


# --------------------------------------------------------------------------- parties


@dataclass(frozen=True)
class _Party:
    """A customer or prospect: account id, company, contact person and their details."""

    account_id: str
    company: str
    person: str
    role: str
    email: str
    phone: str
    zone: _Zone


def _company(rng: Random, stem: str, zone: _Zone) -> str:
    suffixes = {"EUR": EU_SUFFIXES, "GBP": UK_SUFFIXES}.get(zone.currency, US_SUFFIXES)
    return f"{stem} {rng.choice(suffixes)}"


def _phone(rng: Random, zone: _Zone) -> str:
    if zone.currency == "GBP":
        return f"+44 20 7946 0{rng.randrange(100, 1000)}"
    if zone.currency == "EUR":
        return f"+49 30 23125 {rng.randrange(100, 1000)}"
    area = rng.choice(("212", "312", "415", "617", "206", "512", "303"))
    number = f"555-01{rng.randrange(10, 100)}"
    return f"({area}) {number}" if rng.random() < 0.5 else f"+1 {area} {number.replace('-', ' ')}"


def _parties(rng: Random, prefix: str, roles: Sequence[str], stems: Sequence[str]) -> list[_Party]:
    """A pool of customers (one per company stem), so that accounts recur across entries."""
    numbers = rng.sample(range(100, 9999), len(stems))
    parties = []
    for stem, number in zip(stems, numbers, strict=True):
        zone = rng.choice(ZONES if prefix == "acct_" else (*US_ZONES, *US_ZONES, *ZONES[4:]))
        person = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        domain = stem.split()[0].lower() + rng.choice((".com", ".io", ".co"))
        parties.append(
            _Party(
                account_id=f"{prefix}{number}",
                company=_company(rng, stem, zone),
                person=person,
                role=rng.choice(roles),
                email=f"{_email_local(person)}@{domain}",
                phone=_phone(rng, zone),
                zone=zone,
            )
        )
    return parties


def _person(rng: Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


# --------------------------------------------------------------------------- support-bot


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


# --------------------------------------------------------------------------- ops-agent


@dataclass(frozen=True)
class _Incident:
    """One incident: what broke, when, how bad, and who fixed it."""

    incident_id: str
    ticket_id: str
    service: str
    hosts: tuple[str, ...]
    severity: str
    start: datetime
    minutes: int
    error_rate: Decimal
    bad: str
    good: str
    on_call: str
    on_call_role: str
    zone: _Zone

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)


ERROR_RATES = {"sev1": (300, 950), "sev2": (80, 400), "sev3": (10, 120)}
"""Peak error rate range per severity, in tenths of a percent."""

SEVERITY_TEXT = {
    "sev1": ("SEV-1", "Sev1", "severity 1", "P1"),
    "sev2": ("SEV-2", "Sev2", "severity 2", "P2"),
    "sev3": ("SEV-3", "Sev3", "severity 3", "P3"),
}


def _incident(rng: Random, day: date) -> _Incident:
    service = rng.choice(SERVICES)
    numbers = rng.sample(range(1, 9), rng.choice((1, 1, 2, 3)))
    major, minor = rng.randrange(1, 6), rng.randrange(0, 12)
    patch = rng.randrange(1, 9)
    severity = rng.choice(("sev1", "sev2", "sev2", "sev3", "sev3"))
    start = datetime.combine(day, time(rng.randrange(24), rng.randrange(60)), tzinfo=UTC)
    return _Incident(
        incident_id=f"INC-{rng.randrange(10000, 99999)}",
        ticket_id=f"OPS-{rng.randrange(1000, 9999)}",
        service=service,
        hosts=tuple(f"{service}-{n}" for n in sorted(numbers)),
        severity=severity,
        start=start,
        minutes=rng.randrange(6, 190),
        error_rate=Decimal(rng.randrange(*ERROR_RATES[severity])) / 10,
        bad=f"v{major}.{minor}.{patch}",
        good=f"v{major}.{minor}.{patch - 1}",
        on_call=_person(rng),
        on_call_role=rng.choice(OPS_ROLES),
        zone=rng.choice((UTC_ZONE, UTC_ZONE, *US_ZONES[:2], ZONES[5])),
    )


def _hosts_text(hosts: Sequence[str]) -> str:
    if len(hosts) == 1:
        return hosts[0]
    return ", ".join(hosts[:-1]) + " and " + hosts[-1]


def _mitigation(rng: Random, inc: _Incident) -> tuple[str, str]:
    """(sentence, tool log) of how the incident was mitigated."""
    roll = rng.random()
    if roll < 0.6:
        return (
            f"Rolled {inc.service} back from {inc.bad} to {inc.good}.",
            _tool(rng, "deploy.rollback", {"service": inc.service, "version": inc.good}, {}),
        )
    if roll < 0.8:
        host = inc.hosts[0]
        return (
            f"Drained and restarted {host}; the other nodes absorbed the traffic. {inc.bad} stays "
            "deployed until the fix lands.",
            _tool(rng, "hosts.restart", {"host": host, "drain": True}, {}),
        )
    flag = rng.choice(("new_checkout_flow", "async_ledger_writes", "batch_token_refresh"))
    return (
        f"Disabled the {flag} feature flag that shipped with {inc.bad}.",
        _tool(rng, "flags.disable", {"flag": flag, "environment": "production"}, {}),
    )


def _incident_note(rng: Random, inc: _Incident) -> tuple[str, tuple[str, ...]]:
    reference = inc.start.date()
    severity = rng.choice(SEVERITY_TEXT[inc.severity])
    symptom = rng.choice(SYMPTOMS).format(service=inc.service)
    action, tool = _mitigation(rng, inc)
    due = _business_days_after(reference, rng.choice((3, 5, 10)))
    sentences = [
        _pick(
            rng,
            (
                "{inc} ({sev}): {symptom}, hosts {hosts}.",
                "Incident {inc}, {sev}. {Symptom} (hosts {hosts}).",
                "Closing note for {inc} ({sev}) - {symptom} affecting {hosts}.",
            ),
            inc=inc.incident_id,
            sev=severity,
            symptom=symptom,
            Symptom=symptom[0].upper() + symptom[1:],
            hosts=_hosts_text(inc.hosts),
        ),
        _pick(
            rng,
            (
                "Alerts fired {when} and {role} {person} was paged.",
                "Impact started {when}; {role} {person} took the page.",
            ),
            when=_when(rng, inc.zone, inc.start, iso_ok=True),
            role=inc.on_call_role,
            person=inc.on_call,
        ),
        _pick(
            rng,
            (
                "Error rate peaked at {rate}%.",
                "At the worst point {rate}% of requests were failing.",
                "5xx rate topped out at {rate}%.",
            ),
            rate=inc.error_rate,
        ),
        _pick(
            rng,
            ("Root cause: {cause}.", "Caused by {cause}."),
            cause=rng.choice(ROOT_CAUSES).format(bad=inc.bad),
        ),
        action,
        tool,
        _pick(
            rng,
            (
                "Service recovered {when}, so {service} was down for {duration}.",
                "Resolved {when}; the outage lasted {duration}.",
                "All clear {when}; the impact lasted {duration} from the first alert.",
            ),
            when=_when(rng, inc.zone, inc.end, iso_ok=True),
            service=inc.service,
            duration=_duration(inc.minutes),
        ),
        _pick(
            rng,
            (
                "Follow-up ticket {ticket} filed to {action}, due {due}.",
                "{ticket} tracks the follow-up ({action}); owner {person}, due {due}.",
            ),
            ticket=inc.ticket_id,
            action=rng.choice(FOLLOW_UPS),
            person=inc.on_call,
            due=_date_text(rng, due, reference),
        ),
    ]
    _swap(rng, sentences, 2)
    return _paragraphs(rng, _sprinkle(rng, sentences, OPS_ASIDES)), ("incident", inc.severity)


def _incident_timeline(rng: Random, inc: _Incident) -> tuple[str, tuple[str, ...]]:
    wall, abbreviation = _local(inc.zone, inc.start)
    page = inc.start + timedelta(minutes=rng.randrange(1, 5))
    fix = inc.start + timedelta(minutes=max(3, inc.minutes - rng.randrange(2, 6)))
    action, tool = _mitigation(rng, inc)
    severity = rng.choice(SEVERITY_TEXT[inc.severity])
    lines = [
        f"{inc.incident_id} timeline ({severity}, {inc.service}, times in {abbreviation}):",
        f"- {wall:%Y-%m-%d %H:%M} {abbreviation}: alerts fired, error rate at {inc.error_rate}% "
        f"on {_hosts_text(inc.hosts)}. Incident started.",
        f"- {_time_only(inc.zone, page)}: paged {inc.on_call_role} {inc.on_call}.",
        f"- {_time_only(inc.zone, fix)}: {action}",
        f"  {tool}",
        f"- {_time_only(inc.zone, inc.end)}: error rate back under 0.5%, incident "
        f"resolved. Down for {_duration(inc.minutes)} in total.",
        f"Root cause: {rng.choice(ROOT_CAUSES).format(bad=inc.bad)}.",
        f"Follow-up: {inc.ticket_id} to {rng.choice(FOLLOW_UPS)}.",
    ]
    return "\n".join(lines), ("incident", inc.severity, "timeline")


def _change_note(rng: Random, inc: _Incident) -> tuple[str, tuple[str, ...]]:
    new = inc.bad
    window = rng.choice((30, 45, 60, 90, 120))
    end = inc.start + timedelta(minutes=window)
    canary = inc.hosts[0]
    rate = Decimal(rng.randrange(1, 9)) / 10
    sentences = [
        _pick(
            rng,
            (
                "Change {ticket}: upgrade {service} to {new} on {hosts}.",
                "Planned change {ticket} - rolling {service} forward to {new} across {hosts}.",
            ),
            ticket=inc.ticket_id,
            service=inc.service,
            new=new,
            hosts=_hosts_text(inc.hosts),
        ),
        f"Window opened {_when(rng, inc.zone, inc.start)} and closed "
        f"{_when(rng, inc.zone, end)}, {_duration(window)} in total.",
        f"Canary on {canary} first; the error rate stayed at {rate}% throughout.",
        _tool(
            rng,
            "deploy.release",
            {"service": inc.service, "version": new, "strategy": "canary"},
            {},
        ),
        rng.choice(
            (
                "No incident raised and no customer impact.",
                "Rollback plan was not needed.",
                "Everything nominal afterwards; closing the change.",
            )
        ),
        f"Executed by {inc.on_call_role} {inc.on_call}.",
        rng.choice(
            (
                "Pre-checks passed: replication healthy, no open incidents on the service.",
                "Change was announced in the ops channel the day before.",
                "Release notes list two bug fixes and a dependency bump.",
            )
        ),
    ]
    _swap(rng, sentences, 2)
    return _paragraphs(rng, _sprinkle(rng, sentences, OPS_ASIDES[1:])), ("change",)


def _capacity_note(rng: Random, inc: _Incident) -> tuple[str, tuple[str, ...]]:
    host = inc.hosts[0]
    used = rng.randrange(86, 98)
    size = rng.choice((500, 1000, 2000, 4000))
    due = _business_days_after(inc.start.date(), rng.choice((5, 10)))
    sentences = [
        f"Disk usage on {host} reached {used}% {_when(rng, inc.zone, inc.start)}.",
        "The alert threshold is 85%, so this was caught early and nothing was degraded.",
        rng.choice(
            (
                "Growth came from verbose logging left on after last week's debugging.",
                "Write-ahead logs piled up behind a stalled replica.",
                "Nightly exports were never pruned.",
            )
        ),
        f"Expanded the volume to {size} GB before it filled up; no restart was needed.",
        _tool(rng, "storage.resize_volume", {"host": host, "size_gb": size}, {}),
        f"{inc.ticket_id} opens the retention work, due "
        f"{_date_text(rng, due, inc.start.date())}, owner {inc.on_call_role} {inc.on_call}.",
    ]
    return _paragraphs(rng, _sprinkle(rng, sentences, CAPACITY_ASIDES)), ("capacity",)


def _ops_entry(rng: Random, day: date) -> tuple[datetime, str, tuple[str, ...]]:
    inc = _incident(rng, day)
    roll = rng.random()
    if roll < 0.55:
        content, tags = _incident_note(rng, inc)
    elif roll < 0.7:
        content, tags = _incident_timeline(rng, inc)
    elif roll < 0.88:
        content, tags = _change_note(rng, inc)
    else:
        content, tags = _capacity_note(rng, inc)
    written = inc.end + timedelta(minutes=rng.randrange(5, 45))
    return written, content, tags


# --------------------------------------------------------------------------- sales-agent


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


# --------------------------------------------------------------------------- the corpus


def _day(rng: Random, start: date, weekends: bool) -> date:
    day = start + timedelta(days=rng.randrange(SPAN_DAYS))
    if not weekends and day.weekday() >= 5:
        day -= timedelta(days=day.weekday() - 4)
    return day


def generate_corpus(
    count: int = 300, seed: int = 7, start: date = date(2026, 2, 2)
) -> list[DemoEntry]:
    """``count`` entries spread over eight weeks from ``start``, the agents in turn.

    The same arguments always give the same entries, ordered by ``occurred_at``.
    """
    rng = Random(seed)
    stems = rng.sample(COMPANY_STEMS, len(COMPANY_STEMS))
    half = len(stems) // 2
    customers = _parties(rng, "cust_", SUPPORT_ROLES, stems[:half])
    accounts = _parties(rng, "acct_", SALES_TITLES, stems[half:])
    entries = []
    for i in range(count):
        agent_id, schema = AGENTS[i % len(AGENTS)]
        if agent_id == "support-bot":
            made = _support_entry(rng, _day(rng, start, weekends=False), customers)
        elif agent_id == "ops-agent":
            made = _ops_entry(rng, _day(rng, start, weekends=True))
        else:
            made = _sales_entry(rng, _day(rng, start, weekends=False), accounts)
        instant, content, tags = made
        entries.append(DemoEntry(agent_id, schema, instant, content, tags))
    return sorted(entries, key=lambda e: (e.occurred_at, e.agent_id, e.content))
