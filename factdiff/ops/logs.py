"""Log lines for people and machines: one line per event, library request logs kept quiet.

``configure("text")`` prints ``2026-11-29T20:35:04Z INFO factdiff.worker claimed entry ...``;
``configure("json")`` one JSON object per line (``time``, ``level``, ``logger``,
``message``). Messages never span lines: newlines are folded and an exception is appended as
``Type: message`` instead of a traceback (a pool error is one line, not four), and terminal
controls in them (an entry id or error quoting stored text) are shown as escapes. The HTTP
libraries under the model SDKs log every request at INFO; they are kept at WARNING.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal, TextIO

from factdiff.present.safe_text import one_line

__all__ = ["QUIET_LOGGERS", "configure"]

QUIET_LOGGERS = ("httpx", "httpx2", "httpcore", "openai", "anthropic", "psycopg.pool")
"""Library loggers held at WARNING: one line per model call would drown the worker's own."""

LogFormat = Literal["text", "json"]


def _one_line(record: logging.LogRecord) -> str:
    message = record.getMessage()
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        message = f"{message}: {type(error).__name__}: {error}"
    return one_line(" ".join(message.split()))


def _time(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER MESSAGE`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{_time(record)} {record.levelname} {record.name} {_one_line(record)}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(
            {
                "time": _time(record),
                "level": record.levelname,
                "logger": record.name,
                "message": _one_line(record),
            },
            ensure_ascii=False,
        )


def configure(
    fmt: LogFormat = "text", level: int = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Send factdiff's log lines to ``stream`` (stderr) in ``fmt``; returns the handler."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for existing in list(root.handlers):
        if getattr(existing, "_factdiff", False):
            root.removeHandler(existing)
    handler._factdiff = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler
