"""``factdiff keys create|list|revoke``: the API keys of ``factdiff serve``.

A key's secret is printed once by ``create`` and stored only as its SHA-256.
``create --json`` prints ``{"key", "name", "scope"}``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from factdiff.cli.options import db_option, json_option, not_blank, open_store
from factdiff.cli.render import console, echo, echo_json, table, text
from factdiff.errors import InputError


@click.group("keys")
def keys_group() -> None:
    """API keys for `factdiff serve`: create (printed once), list, revoke."""


@keys_group.command("create")
@click.option("--agent", callback=not_blank, help="An agent key: this agent's entries only.")
@click.option("--operator", is_flag=True, help="An operator key: every agent, reviews, schemas.")
@click.option("--name", callback=not_blank, help="The key's name (default: generated).")
@db_option
@json_option
def create_command(
    agent: str | None, operator: bool, name: str | None, db: str, as_json: bool
) -> None:
    """Create a key: --agent A or --operator. The key is printed once; keep it."""
    from factdiff.store.api_keys import KeyScope

    if (agent is None) == (not operator):
        raise InputError("give --agent A for an agent key, or --operator (not both)")
    scope = KeyScope.OPERATOR if operator else KeyScope.AGENT
    with open_store(db) as store:
        created = store.create_api_key(
            scope=scope, agent_id=agent, name=name, now=datetime.now(UTC)
        )
    if as_json:
        echo_json({"key": created.secret, "name": created.key.name, "scope": scope.value})
        return
    echo(created.secret)
    who = f"agent {agent}" if agent is not None else "operator"
    echo(f"key {created.key.name} ({who}): shown once, stored hashed", err=True)


@keys_group.command("list")
@db_option
@json_option
def list_command(db: str, as_json: bool) -> None:
    """Every key (never its secret): name, scope, agent, created, revoked."""
    with open_store(db, create=False) as store:
        keys = store.api_keys()
    if as_json:
        echo_json({"keys": [key.to_json() for key in keys]})
        return
    rows = table("name", "scope", "agent", "created", "revoked")
    for key in keys:
        rows.add_row(
            text(key.name),
            text(key.scope.value),
            text(key.agent_id),
            text(key.created_at.isoformat(timespec="seconds")),
            text(None if key.revoked_at is None else key.revoked_at.isoformat(timespec="seconds")),
        )
    console().print(rows)


@keys_group.command("revoke")
@click.argument("name")
@db_option
@json_option
def revoke_command(name: str, db: str, as_json: bool) -> None:
    """Revoke the key NAME: requests with it get 401 from then on."""
    with open_store(db, create=False) as store:
        revoked = store.revoke_api_key(name, datetime.now(UTC))
    if as_json:
        echo_json({"name": name, "revoked": True, "already": not revoked})
    else:
        echo(f"{name}: {'revoked' if revoked else 'was already revoked'}")
