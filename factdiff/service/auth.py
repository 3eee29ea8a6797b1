"""Who is calling: the key in ``Authorization: Bearer KEY``, and the scope checks.

An agent key acts only on its own agent's entries: another agent's entry is reported
missing (404), exactly as an unknown id. Operator keys act on everything. No key, an unknown
key or a revoked key is 401; a valid key asking for what its scope does not allow is 403.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from factdiff.service.errors import ApiError, not_found
from factdiff.store import Entry, EntryNotFound, MemoryStore
from factdiff.store.api_keys import KeyScope

bearer = HTTPBearer(auto_error=False, description="A key from `factdiff keys create`.")


@dataclass(frozen=True)
class Principal:
    """The caller: its key's name, scope and (agent keys) agent."""

    name: str
    scope: KeyScope
    agent: str | None

    @property
    def is_operator(self) -> bool:
        """Whether the key may act on every agent, reviews, schemas and demotion."""
        return self.scope is KeyScope.OPERATOR

    def agent_filter(self, asked: str | None) -> str | None:
        """The agent a listing or search covers: an agent key's own (asking for another
        is 403); an operator's choice (``None``: all)."""
        if self.is_operator:
            return asked
        if asked is not None and asked != self.agent:
            raise ApiError(403, "forbidden", "an agent key acts only on its own agent")
        return self.agent

    def owns(self, entry: Entry) -> bool:
        """Whether this key may see ``entry``."""
        return self.is_operator or entry.agent_id == self.agent


def store_of(request: Request) -> MemoryStore:
    """The store for this request's thread."""
    from factdiff.service.state import state_of

    return state_of(request.app).stores.get()


def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    """The key's principal; 401 without a valid, unrevoked key."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise ApiError(401, "unauthorized", "send a key: Authorization: Bearer KEY")
    key = store_of(request).api_key_for(credentials.credentials)
    if key is None:
        raise ApiError(401, "unauthorized", "unknown key: create one with `factdiff keys create`")
    if key.revoked_at is not None:
        raise ApiError(401, "unauthorized", f"key {key.name!r} is revoked")
    return Principal(key.name, key.scope, key.agent_id)


def operator(caller: Annotated[Principal, Depends(principal)]) -> Principal:
    """The principal of an operator key; 403 for an agent key."""
    if not caller.is_operator:
        raise ApiError(
            403, "forbidden", "this needs an operator key (factdiff keys create --operator)"
        )
    return caller


def owned_entry(store: MemoryStore, caller: Principal, entry_id: str) -> Entry:
    """The entry, if the caller may see it; 404 otherwise (missing or another agent's)."""
    try:
        entry = store.get(entry_id)
    except EntryNotFound:
        raise not_found("entry") from None
    if not caller.owns(entry):
        raise not_found("entry")
    return entry


def check_owned(store: MemoryStore, caller: Principal, entry_ids: list[str]) -> None:
    """404 unless the caller may see every one of ``entry_ids``."""
    for entry_id in entry_ids:
        owned_entry(store, caller, entry_id)


Caller = Annotated[Principal, Depends(principal)]
Operator = Annotated[Principal, Depends(operator)]
Store = Annotated[MemoryStore, Depends(store_of)]
