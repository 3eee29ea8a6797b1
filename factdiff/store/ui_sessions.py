"""Sessions of the review pages (``/ui``), kept in the store so that signing out ends them
in every process of ``factdiff serve``.

``UiSessionsMixin`` is part of every ``MemoryStore``. A session's token (256 random bits,
base64url) is returned once by ``start_ui_session`` and travels only in the signed cookie;
the store keeps its SHA-256 (hex), the key name that signed in, and when the session
expires or ended. SQL lives in ``sql/common/ui_sessions.sql`` (schema version 17).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from typing import TYPE_CHECKING, cast

from factdiff.store import codec

if TYPE_CHECKING:
    from factdiff.store.base import MemoryStore


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _store(mixin: UiSessionsMixin) -> MemoryStore:
    return cast("MemoryStore", mixin)


class UiSessionsMixin:
    """Review-page session methods of ``MemoryStore`` (see the module docstring)."""

    def start_ui_session(self, key_name: str, *, expires_at: datetime, now: datetime) -> str:
        """A new session of the key ``key_name`` until ``expires_at``: its token (sessions
        expired by ``now`` are deleted on the way)."""
        store = _store(self)
        token = secrets.token_urlsafe(32)
        params = {
            "token_hash": _hash(token),
            "key_name": codec.check_text(key_name, "key name"),
            "now": codec.to_micros(now, "now"),
            "expires_at": codec.to_micros(expires_at, "expires_at"),
        }

        def start() -> None:
            store._exec("delete_expired_ui_sessions", now=params["now"])
            store._exec("insert_ui_session", **params)

        store._write(start)
        return token

    def ui_session_key(self, token: str, now: datetime) -> str | None:
        """The key name of the live session ``token`` (``None``: unknown, ended, expired)."""
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        found = store._one("select_ui_session", token_hash=_hash(token), now=now_us)
        return None if found is None else str(found)

    def end_ui_session(self, token: str, now: datetime) -> bool:
        """End the session ``token``; ``False`` when it was unknown or ended already."""
        store = _store(self)
        now_us = codec.to_micros(now, "now")
        ended = store._write(
            lambda: store._count("end_ui_session", token_hash=_hash(token), now=now_us)
        )
        return ended == 1
