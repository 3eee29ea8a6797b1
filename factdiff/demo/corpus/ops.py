"""``ops-agent`` entries: incident notes and timelines, changes, capacity fixes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from random import Random

from factdiff.demo.corpus.parties import _person
from factdiff.demo.corpus.phrasing import (
    _date_text,
    _duration,
    _paragraphs,
    _pick,
    _sprinkle,
    _swap,
    _time_only,
    _tool,
    _when,
)
from factdiff.demo.corpus.tables import (
    CAPACITY_ASIDES,
    FOLLOW_UPS,
    OPS_ASIDES,
    OPS_ROLES,
    ROOT_CAUSES,
    SERVICES,
    SYMPTOMS,
)
from factdiff.demo.corpus.timekeeping import (
    US_ZONES,
    UTC_ZONE,
    ZONES,
    _business_days_after,
    _local,
    _Zone,
)


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
