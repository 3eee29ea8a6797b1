"""``factdiff worker``: a long-running demotion worker (see ``factdiff.demotion.worker``)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

import click

from factdiff.cli.options import db_option, json_option, not_blank
from factdiff.cli.render import echo, echo_json
from factdiff.cli.settings_options import (
    COMPONENT_KEYS,
    DEMOTION_KEYS,
    MODEL_KEYS,
    WORKER_KEYS,
    model_param_option,
    setting_options,
    settings_from,
)
from factdiff.demotion.demoter import DemotionSettings
from factdiff.demotion.loop_health import LOOPS, LoopHealth
from factdiff.demotion.worker import Execution, Worker, WorkerSettings
from factdiff.errors import UsageError
from factdiff.ops.logs import configure

if TYPE_CHECKING:
    from factdiff.values.base import JSON


@click.command("worker")
@setting_options(*WORKER_KEYS)
@click.option("--agent", callback=not_blank, help="Only this agent's entries.")
@setting_options(*COMPONENT_KEYS, *DEMOTION_KEYS, *MODEL_KEYS)
@model_param_option
@click.option("--worker-id", callback=not_blank, help="Name in leases (default: host:pid).")
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    help="Serve Prometheus /metrics, /healthz and /readyz (503 while a loop fails) on "
    "127.0.0.1:PORT (needs the server extra).",
)
@db_option
@json_option
def worker_command(
    agent: str | None,
    model_params: tuple[str, ...],
    worker_id: str | None,
    metrics_port: int | None,
    db: str,
    as_json: bool,
    **options: object,
) -> None:
    """Claim due entries and demote them until SIGTERM or Ctrl-C.

    Any number of workers on any number of machines may share one PostgreSQL store (or a few
    processes one SQLite file): each claims entries with a lease, heartbeats while it works,
    and commits only while its lease holds. No separate scheduler is needed: an entry is due
    when a claim finds it dormant and past its backoff. On SIGTERM in-flight entries are
    finished within --grace, the rest released; the counts are printed at exit. The worker
    logs its lifecycle on stderr (--log-format json for machines) and exits 1 when it cannot
    go on (a provider account failure, a broken store).
    """
    settings = settings_from(options, model_params)
    worker_settings = WorkerSettings.from_settings(settings, agent=agent)
    demotion = DemotionSettings.from_settings(settings)
    configure(settings.worker.log_format)
    health = LoopHealth(LOOPS, worker_settings.stale_after)
    on_execution = (
        None if metrics_port is None else _serve_metrics(db, demotion, metrics_port, health)
    )
    worker = Worker(
        db,
        worker_settings,
        demotion,
        worker_id=worker_id,
        on_execution=on_execution,
        health=health,
    )

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
        data: dict[str, JSON] = {
            "worker_id": worker.worker_id,
            "counts": counted,
            "released": report.released,
            "reevaluated": dict(sorted(report.reevaluated.items())),
        }
        if report.failure is not None:
            data["failure"] = report.failure
        echo_json(data)
    else:
        counts = ", ".join(f"{k} {v}" for k, v in counted.items()) or "nothing"
        echo(f"worker {worker.worker_id} stopped: {counts}; released {report.released}")
        if report.reevaluated:
            done = ", ".join(f"{k} {v}" for k, v in sorted(report.reevaluated.items()))
            echo(f"re-evaluated: {done}")
    if report.failure is not None:
        click.echo(f"error: {report.failure}", err=True)
        sys.exit(1)


def _serve_metrics(
    db: str, demotion: DemotionSettings, port: int, health: LoopHealth
) -> Callable[[Execution], None]:
    """Start the worker's ``/metrics``, ``/healthz`` and ``/readyz`` server; returns what
    times each handled entry."""
    try:
        from factdiff.ops.metrics import ProcessMetrics, snapshot_from
    except ImportError as exc:
        raise UsageError(
            f"--metrics-port needs prometheus-client ({exc}): pip install 'factdiff[server]'"
        ) from None
    metrics = ProcessMetrics(snapshot_from(db, demotion.older_than), health)
    try:
        metrics.serve(port)
    except OSError as exc:
        raise UsageError(f"--metrics-port {port}: cannot listen: {exc.strerror or exc}") from None

    def timed(execution: Execution) -> None:
        if execution.finished_at is not None:
            seconds = (execution.finished_at - execution.claimed_at).total_seconds()
            metrics.demotion_seconds.observe(max(0.0, seconds))

    return timed
