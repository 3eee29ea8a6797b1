"""The docs site builds strict, offline, with the generated references in it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_the_site_builds_strict_with_every_command_and_no_outside_assets(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    assert "WARNING" not in run.stderr, run.stderr[-4000:]
    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for command in ("factdiff add", "factdiff keys create", "factdiff review resolve"):
        assert f'id="{command.replace(" ", "-")}"' in cli, command
    assert (site / "reference" / "openapi.json").read_text(encoding="utf-8").startswith("{")
    python = (site / "reference" / "python.html").read_text(encoding="utf-8")
    assert 'id="factdiff.memory.Memory.asearch"' in python
    outside = set()
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        outside |= set(re.findall(r'<(?:script|link|img)[^>]*(?:src|href)="(https?:[^"]+)"', html))
    assert not outside, sorted(outside)
