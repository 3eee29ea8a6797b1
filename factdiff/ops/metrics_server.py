"""A worker's HTTP port (``factdiff worker --metrics-port``): ``/metrics``, ``/healthz`` and
``/readyz``, served from background threads.

* ``/readyz``: 200 when every loop of the worker is ready, else 503; the body is
  ``LoopHealth.to_json()`` (``status``, and each loop: ``alive``, ``ready``, ``failures``,
  ``last_success``, ``last_error``);
* ``/healthz``: 200 while the process serves (``{"status": "ok"}``);
* any other path: the Prometheus exposition, as before.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse

if TYPE_CHECKING:
    from factdiff.demotion.loop_health import LoopHealth
    from factdiff.values.base import JSON

__all__ = ["health_app", "serve"]

WsgiApp = Callable[[dict[str, object], StartResponse], Iterable[bytes]]


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Log nothing (scrapes and probes come every few seconds)."""


def _json(start_response: StartResponse, status: str, body: dict[str, JSON]) -> list[bytes]:
    data = json.dumps(body).encode("utf-8")
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    )
    return [data]


def health_app(metrics: WsgiApp, health: LoopHealth) -> WsgiApp:
    """``metrics`` with ``/healthz`` and ``/readyz`` in front (see the module docstring)."""

    def app(environ: dict[str, object], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return _json(start_response, "200 OK", {"status": "ok"})
        if path == "/readyz":
            ready = health.ready()
            status = "200 OK" if ready else "503 Service Unavailable"
            return _json(start_response, status, health.to_json())
        return metrics(environ, start_response)

    return app


def serve(app: WsgiApp, host: str, port: int) -> WSGIServer:
    """Serve ``app`` on ``host:port`` from a daemon thread; returns the server."""
    server = make_server(host, port, app, server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, name="factdiff-metrics", daemon=True).start()
    return server
