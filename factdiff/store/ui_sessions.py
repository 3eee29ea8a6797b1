"""Sessions of the review pages (``/ui``), kept in the store so that signing out ends them
in every process of ``factdiff serve``.

``UiSessions`` is a repository over the store's ``Database``; ``MemoryStore`` forwards
its methods. A session's token (256 random bits,
base64url) is returned once by ``start_ui_session`` and travels only in the signed cookie;
the store keeps its SHA-256 (hex), the key name that signed in, and when the session
expires or ended. SQL lives in ``sql/common/ui_sessions.sql`` (schema version 17).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from factdiff.store import codec
from factdiff.store.database import Database


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class UiSessions:
    """Review-page session methods of ``MemoryStore`` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def start_ui_session(self, key_name: str, *, expires_at: datetime, now: datetime) -> str:
        """A new session of the key ``key_name`` until ``expires_at``: its token (sessions
        expired by ``now`` are deleted on the way)."""
        db = self._db
        token = secrets.token_urlsafe(32)
        params = {
            "token_hash": _hash(token),
            "key_name": codec.check_text(key_name, "key name"),
            "now": codec.to_micros(now, "now"),
            "expires_at": codec.to_micros(expires_at, "expires_at"),
        }

        def start() -> None:
            db.exec("delete_expired_ui_sessions", now=params["now"])
            db.exec("insert_ui_session", **params)

        db.write(start)
        return token

    def ui_session_key(self, token: str, now: datetime) -> str | None:
        """The key name of the live session ``token`` (``None``: unknown, ended, expired)."""
        db = self._db
        now_us = codec.to_micros(now, "now")
        found = db.one("select_ui_session", token_hash=_hash(token), now=now_us)
        return None if found is None else str(found)

    def end_ui_session(self, token: str, now: datetime) -> bool:
        """End the session ``token``; ``False`` when it was unknown or ended already."""
        db = self._db
        now_us = codec.to_micros(now, "now")
        ended = db.write(lambda: db.count("end_ui_session", token_hash=_hash(token), now=now_us))
        return ended == 1
