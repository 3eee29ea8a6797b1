"""API keys of ``factdiff serve``: created with a random secret, stored hashed, revoked once.

``ApiKeys`` is a repository over the store's ``Database``; ``MemoryStore`` forwards its
methods. A key's secret (``fd_`` + 43 base64url
characters, 256 random bits) is returned once by ``create_api_key`` and never stored: the
store keeps its SHA-256 (hex). An ``agent`` key is bound to one agent id; an ``operator``
key to none. SQL lives in ``sql/<dialect>/service.sql`` (schema version 8).
"""

from __future__ import annotations

import enum
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from factdiff.errors import InputError
from factdiff.store import codec
from factdiff.store.database import Database

KEY_PREFIX = "fd_"


class KeyScope(enum.StrEnum):
    """What a key may act on: one agent's entries, or everything (``operator``)."""

    AGENT = "agent"
    OPERATOR = "operator"


@dataclass(frozen=True)
class ApiKey:
    """A stored key (never its secret)."""

    name: str
    scope: KeyScope
    agent_id: str | None
    created_at: datetime
    revoked_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        """``{"name", "scope", "agent", "created_at", "revoked_at"}``."""
        return {
            "name": self.name,
            "scope": self.scope.value,
            "agent": self.agent_id,
            "created_at": self.created_at.isoformat(),
            "revoked_at": None if self.revoked_at is None else self.revoked_at.isoformat(),
        }


@dataclass(frozen=True)
class NewApiKey:
    """A key just created: its secret is shown here once."""

    key: ApiKey
    secret: str


def key_hash(secret: str) -> str:
    """The stored form of a key's secret: SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _key(row: Any) -> ApiKey:
    return ApiKey(
        name=str(row["name"]),
        scope=KeyScope(str(row["scope"])),
        agent_id=None if row["agent_id"] is None else str(row["agent_id"]),
        created_at=codec.from_micros(int(row["created_at"])),
        revoked_at=codec.opt_datetime(
            None if row["revoked_at"] is None else int(row["revoked_at"])
        ),
    )


class ApiKeys:
    """API key methods of ``MemoryStore`` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create_api_key(
        self,
        *,
        scope: KeyScope,
        agent_id: str | None,
        name: str | None,
        now: datetime,
    ) -> NewApiKey:
        """A new key; ``InputError`` if the name is taken or the scope and agent disagree."""
        db = self._db
        scope = KeyScope(scope)
        if (scope is KeyScope.AGENT) != (agent_id is not None):
            raise InputError("an agent key needs --agent A; an operator key takes no agent")
        if agent_id is not None and not agent_id.strip():
            raise InputError("agent id must not be empty")
        secret = KEY_PREFIX + secrets.token_urlsafe(32)
        chosen = name if name is not None else f"{agent_id or 'operator'}-{secret[3:11]}"
        if not chosen.strip():
            raise InputError("key name must not be empty (leave --name out for a generated one)")
        now_us = codec.to_micros(now, "now")
        params = {
            "name": codec.check_text(chosen, "key name"),
            "scope": scope.value,
            "agent_id": None if agent_id is None else codec.check_text(agent_id, "agent id"),
            "key_hash": key_hash(secret),
            "now": now_us,
        }
        if db.write(lambda: db.count("insert_api_key", **params)) != 1:
            raise InputError(f"a key named {chosen!r} exists: choose another --name")
        key = ApiKey(chosen, scope, agent_id, codec.from_micros(now_us), None)
        return NewApiKey(key, secret)

    def api_key_for(self, secret: str) -> ApiKey | None:
        """The key whose secret this is (revoked or not), else ``None``."""
        row = self._db.row("select_api_key_by_hash", key_hash=key_hash(secret))
        return None if row is None else _key(row)

    def api_keys(self) -> list[ApiKey]:
        """Every key, oldest first."""
        db = self._db
        return [_key(row) for row in db.rows(db.sql("select_api_keys"), {})]

    def revoke_api_key(self, name: str, now: datetime) -> bool:
        """Revoke the key ``name``; ``False`` if it was revoked already.

        ``InputError`` if no key has that name.
        """
        db = self._db
        now_us = codec.to_micros(now, "now")
        if db.write(lambda: db.count("revoke_api_key", name=name, now=now_us)) == 1:
            return True
        if not any(key.name == name for key in self.api_keys()):
            raise InputError(f"no key is named {name!r}: see `factdiff keys list`")
        return False
