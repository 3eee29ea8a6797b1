"""The ``factdiff`` command line: one module per command group, errors as one line.

Exit codes: 0 success (``check``: clean), 1 failure (``check``: failed; runtime errors),
2 usage or input error, 3 ``check``: acceptable with notes.

Commands are imported only when they run (``factdiff --help`` and ``factdiff add`` stay
fast): ``COMMANDS`` names each command's module and keeps its one-line help for the
command list. ``--db`` may be given before the command (``factdiff --db PATH events``) or
after it (``factdiff events --db PATH``).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from factdiff.errors import FactdiffError, UsageError
from factdiff.present.safe_text import one_line

COMMANDS: dict[str, tuple[str, str, str]] = {
    "add": ("factdiff.cli.add_cmd", "add_command", "Add FILE (or - for stdin) as a hot entry."),
    "attest": (
        "factdiff.cli.context_cmd",
        "attest_command",
        "Record (--decision D ID...) or check (verify D) the context a decision was made on.",
    ),
    "check": (
        "factdiff.cli.check_cmd",
        "check_command",
        "Diff the facts of SUMMARY against SOURCE (files, or - for stdin).",
    ),
    "compress": (
        "factdiff.cli.demote_cmd",
        "compress_command",
        "Run the whole pipeline with its retry ladder on FILE (no store).",
    ),
    "context": (
        "factdiff.cli.context_cmd",
        "context_command",
        "Render exactly what an agent is shown of entries ID..., with its sha256 hash.",
    ),
    "copy": (
        "factdiff.cli.transfer_cmds",
        "copy_command",
        "Copy store --from into the empty store --to, with a progress bar.",
    ),
    "correct": (
        "factdiff.cli.forget_cmds",
        "correct_command",
        "Replace an entry's source with a corrected text (FILE, or - for stdin).",
    ),
    "demo": (
        "factdiff.cli.demo_cmd",
        "demo_command",
        "Run the whole pipeline offline on a fresh SQLite store with a generated corpus.",
    ),
    "demote": (
        "factdiff.cli.demote_cmd",
        "demote_command",
        "Compress dormant hot entries; only verified summaries reach the warm tier.",
    ),
    "events": (
        "factdiff.cli.list_cmds",
        "events_command",
        "List events (append-only), oldest first.",
    ),
    "export": (
        "factdiff.cli.transfer_cmds",
        "export_command",
        "Write the store as JSON Lines: every entry in every tier, with its history.",
    ),
    "extract": (
        "factdiff.cli.check_cmd",
        "extract_command",
        "Extract the typed fact record of SOURCE, with evidence spans.",
    ),
    "forget": (
        "factdiff.cli.forget_cmds",
        "forget_command",
        "Erase entries ID... (or --agent A) from every place the store keeps them.",
    ),
    "import": (
        "factdiff.cli.transfer_cmds",
        "import_command",
        "Load an export FILE into an empty store, all or nothing.",
    ),
    "index": (
        "factdiff.cli.store_cmds",
        "index_command",
        "Fill the search indexes: facts of entries added with --defer-index, entries missing.",
    ),
    "keys": (
        "factdiff.cli.keys_cmd",
        "keys_group",
        "API keys for `factdiff serve`: create (printed once), list, revoke.",
    ),
    "list": ("factdiff.cli.list_cmds", "list_command", "List entries by agent, tier and status."),
    "mcp": (
        "factdiff.cli.mcp_cmd",
        "mcp_command",
        "Serve memory tools over MCP on stdio: remember, recall, get_memory, check_summary.",
    ),
    "migrate": (
        "factdiff.cli.store_cmds",
        "migrate_command",
        "Create or upgrade the store's tables.",
    ),
    "models": (
        "factdiff.cli.models_cmd",
        "models_group",
        "Check every configured model: reachable, listed, structured output, one extraction.",
    ),
    "reevaluate": (
        "factdiff.cli.reevaluate_cmd",
        "reevaluate_command",
        "Re-evaluate warm entries compressed under an older version of --schema.",
    ),
    "report": (
        "factdiff.cli.report_cmd",
        "report_group",
        "Reports: loss patterns (report losses) per schema version and summarizer.",
    ),
    "restore": (
        "factdiff.cli.entry_cmds",
        "restore_command",
        "Bring an entry's archived source back from cold to hot (hash-checked).",
    ),
    "review": (
        "factdiff.cli.review_cmd",
        "review_group",
        "Operator review of entries that failed every attempt.",
    ),
    "schema": (
        "factdiff.cli.schema_cmd",
        "schema_group",
        "Validate, inspect and register fact schemas.",
    ),
    "search": (
        "factdiff.cli.search_cmd",
        "search_command",
        "Search memory: entries holding the query's facts first, then by text relevance.",
    ),
    "serve": (
        "factdiff.cli.serve_cmd",
        "serve_command",
        "Serve the HTTP API (/docs, /openapi.json, /v1/..., /metrics, /mcp) on the store.",
    ),
    "show": (
        "factdiff.cli.entry_cmds",
        "show_command",
        "Show an entry: its tier content, compression history and events.",
    ),
    "stats": (
        "factdiff.cli.store_cmds",
        "stats_command",
        "Entries per tier, outcomes, failure rate per schema version, facts lost per field.",
    ),
    "touch": (
        "factdiff.cli.entry_cmds",
        "touch_command",
        "Mark an entry as used now (resets its dormancy clock).",
    ),
    "verify": (
        "factdiff.cli.store_cmds",
        "verify_command",
        "Re-derive every hash: sources, archives, warm narratives and records, attestations.",
    ),
    "worker": (
        "factdiff.cli.worker_cmd",
        "worker_command",
        "Claim due entries and demote them until SIGTERM or Ctrl-C.",
    ),
}
"""Command name -> (module, attribute, one-line help shown by ``factdiff --help``)."""

ROOT_DB_KEY = "factdiff.root_db"
"""Where the root group keeps a ``--db`` given before the command (in ``Context.meta``)."""


class FactdiffGroup(click.Group):
    """The root group: lazy commands, and every error as one line with its exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        command = getattr(importlib.import_module(spec[0]), spec[1])
        if not isinstance(command, click.Command):  # pragma: no cover - a wiring mistake
            raise TypeError(f"{spec[0]}.{spec[1]} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from ``COMMANDS``, without importing every command."""
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
            sys.exit(2)
        except FactdiffError as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
            sys.exit(1)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line; click's own usage errors also become one line (exit 2)."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.ClickException as exc:
            click.echo(f"error: {one_line(_click_message(exc))}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _click_message(exc: click.ClickException) -> str:
    message = exc.format_message()
    if isinstance(exc, click.UsageError) and exc.ctx is not None:
        return f"{message} (see `{exc.ctx.command_path} --help`)"
    return message


def _keep_root_db(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.meta[ROOT_DB_KEY] = value
    return value


@click.group(cls=FactdiffGroup)
@click.version_option(package_name="factdiff")
@click.option(
    "--db",
    callback=_keep_root_db,
    expose_value=False,
    is_eager=True,
    help="SQLite store file or postgresql:// DSN for the command (same as its own --db).",
)
def main() -> None:
    """factdiff: verify memory summaries with a typed fact diff."""
