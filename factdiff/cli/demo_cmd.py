"""``factdiff demo``."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import click

from factdiff.cli.main import ROOT_DB_KEY
from factdiff.cli.options import json_option
from factdiff.cli.render import console, echo_json


@click.command("demo")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Store file to create (default: a fresh temporary file).",
)
@click.option(
    "--count",
    type=click.IntRange(1, 100_000),
    default=300,
    show_default=True,
    help="Generated entries besides the worked example.",
)
@json_option
@click.pass_context
def demo_command(ctx: click.Context, db_path: Path | None, count: int, as_json: bool) -> None:
    """Run the whole pipeline offline on a fresh SQLite store with a generated corpus.

    With --json the narration is left out and the final figures are printed as JSON.
    """
    from factdiff.demo.run import run_demo

    root_db = ctx.meta.get(ROOT_DB_KEY)
    if db_path is None and root_db is not None:
        db_path = Path(root_db)
    if db_path is not None:
        if db_path.exists():
            raise click.UsageError(f"{db_path} exists; the demo needs a fresh store file")
    else:
        db_path = Path(tempfile.mkdtemp(prefix="factdiff-demo-")) / "demo.db"
    out = console()
    if as_json:
        out = console(io.StringIO())
    summary = run_demo(db_path, out, count)
    if as_json:
        echo_json(
            {
                "db": str(db_path),
                "entries": summary.entries,
                "tiers": summary.tiers,
                "outcomes": summary.outcomes,
                "failure_rate": round(summary.failure_rate, 4),
                "seconds": round(summary.seconds, 3),
            }
        )
