"""``factdiff worker``: a long-running demotion worker (see ``factdiff.worker``)."""

from __future__ import annotations

import logging
import signal
from types import FrameType

import click

from factdiff.cli.demote_cmd import build_settings, component_options
from factdiff.cli.options import db_option, json_option, not_blank, parse_duration
from factdiff.cli.render import echo, echo_json
from factdiff.errors import InputError
from factdiff.worker import Worker, WorkerSettings


@click.command("worker")
@click.option("--concurrency", type=int, default=4, show_default=True, help="Entries in flight.")
@click.option("--lease", default="60s", show_default=True, help="Lease length, e.g. 60s or 5m.")
@click.option("--heartbeat", help="Heartbeat interval (default: a third of the lease).")
@click.option("--grace", default="30s", show_default=True, help="SIGTERM grace period.")
@click.option("--poll", default="1s", show_default=True, help="Wait when nothing is due.")
@click.option("--older-than", default="14d", show_default=True, help="Dormancy threshold.")
@click.option("--agent", callback=not_blank, help="Only this agent's entries.")
@component_options
@click.option(
    "--max-attempts",
    type=click.IntRange(min=1),
    help="Attempts before operator review (default: rungs).",
)
@click.option("--backoff", default="1h", show_default=True, help="First retry delay.")
@click.option("--worker-id", callback=not_blank, help="Name in leases (default: host:pid).")
@db_option
@json_option
def worker_command(
    concurrency: int,
    lease: str,
    heartbeat: str | None,
    grace: str,
    poll: str,
    older_than: str,
    agent: str | None,
    extractor: str | None,
    summarizer: str | None,
    ladder: str | None,
    allow_same_model: bool,
    max_attempts: int | None,
    backoff: str,
    worker_id: str | None,
    db: str,
    as_json: bool,
) -> None:
    """Claim due entries and demote them until SIGTERM or Ctrl-C.

    Any number of workers on any number of machines may share one PostgreSQL store (or a few
    processes one SQLite file): each claims entries with a lease, heartbeats while it works,
    and commits only while its lease holds. No separate scheduler is needed: an entry is due
    when a claim finds it dormant and past its backoff. On SIGTERM in-flight entries are
    finished within --grace, the rest released; the counts are printed at exit.
    """
    if concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    settings = WorkerSettings(
        concurrency=concurrency,
        lease_seconds=parse_duration(lease, "--lease", positive=True).total_seconds(),
        heartbeat_seconds=None
        if heartbeat is None
        else parse_duration(heartbeat, "--heartbeat", positive=True).total_seconds(),
        poll_seconds=parse_duration(poll, "--poll", positive=True).total_seconds(),
        grace_seconds=parse_duration(grace, "--grace").total_seconds(),
        agent=agent,
    )
    if settings.heartbeat_every >= settings.lease_seconds:
        if heartbeat is None:
            raise InputError(
                f"--lease {lease} is too short for its heartbeat (a third of the lease, at "
                "least 50ms): give a longer --lease"
            )
        raise InputError("--heartbeat must be shorter than --lease")
    demotion = build_settings(
        older_than, (extractor, summarizer, ladder, allow_same_model), max_attempts, backoff
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    worker = Worker(db, settings, demotion, worker_id=worker_id)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        worker.stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        report = worker.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    counted = dict(sorted(report.counts.items()))
    if as_json:
        echo_json({"worker_id": worker.worker_id, "counts": counted, "released": report.released})
    else:
        counts = ", ".join(f"{k} {v}" for k, v in counted.items()) or "nothing"
        echo(f"worker {worker.worker_id} stopped: {counts}; released {report.released}")
