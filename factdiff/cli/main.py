"""The ``factdiff`` command line: one module per command group, errors as one line.

Exit codes: 0 success (``check``: clean), 1 failure (``check``: failed; runtime errors),
2 usage or input error, 3 ``check``: acceptable with notes.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from factdiff.errors import FactdiffError, UsageError


class FactdiffGroup(click.Group):
    """A click group that turns factdiff errors into one-line messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except FactdiffError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@click.group(cls=FactdiffGroup)
@click.version_option(package_name="factdiff")
def main() -> None:
    """factdiff: verify memory summaries with a typed fact diff."""


def _register() -> None:
    from factdiff.cli import check_cmd, demo_cmd, demote_cmd, schema_cmd, store_cmds, worker_cmd

    for command in (
        check_cmd.check_command,
        check_cmd.extract_command,
        schema_cmd.schema_group,
        demote_cmd.compress_command,
        demote_cmd.demote_command,
        store_cmds.add_command,
        store_cmds.list_command,
        store_cmds.show_command,
        store_cmds.touch_command,
        store_cmds.restore_command,
        store_cmds.events_command,
        store_cmds.stats_command,
        store_cmds.migrate_command,
        store_cmds.verify_command,
        store_cmds.review_group,
        demo_cmd.demo_command,
        worker_cmd.worker_command,
    ):
        main.add_command(command)


_register()
