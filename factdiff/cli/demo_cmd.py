"""``factdiff demo``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from factdiff.cli.render import console


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
def demo_command(db_path: Path | None, count: int) -> None:
    """Run the whole pipeline offline on a fresh SQLite store with a generated corpus."""
    from factdiff.demo.run import run_demo

    if db_path is not None:
        if db_path.exists():
            raise click.UsageError(f"{db_path} exists; the demo needs a fresh store file")
        run_demo(db_path, console(), count)
        return
    folder = Path(tempfile.mkdtemp(prefix="factdiff-demo-"))
    run_demo(folder / "demo.db", console(), count)
