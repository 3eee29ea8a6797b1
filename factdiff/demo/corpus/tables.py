"""Word lists and phrase tables the demo corpus draws from: names, companies, roles,
items, reasons and the asides that pad each agent's notes."""

from __future__ import annotations

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
