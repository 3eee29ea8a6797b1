"""``make browser`` (run by ``make test``): as root it says what it installs, then installs
only the headless browser with apt-get, no recommended packages and no chromedriver; for
anyone else it says what to run and the browser tests skip. apt-get is replaced by ``echo``
here, so nothing is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def make_browser(tmp_path: Path, user_id: int) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    run = subprocess.run(
        [
            "make",
            "-s",
            "browser",
            f"CHROMIUM={tmp_path / 'no-chromium'}",
            "APT_GET=echo apt-get",
            f"USER_ID={user_id}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return run.stdout.strip().splitlines()


def test_as_root_it_says_what_it_installs_then_installs_only_that(tmp_path: Path) -> None:
    announce, update, install = make_browser(tmp_path, 0)
    assert announce.startswith("installing chromium dbus-x11 with apt-get --no-install-recommends")
    assert update == "apt-get update -qq"
    assert install == "apt-get install -y -qq --no-install-recommends chromium dbus-x11"


def test_anyone_else_is_told_what_to_run(tmp_path: Path) -> None:
    (line,) = make_browser(tmp_path, 1000)
    assert "no-chromium is missing" in line
    assert "apt-get install -y --no-install-recommends chromium dbus-x11' as root" in line
    assert "browser tests will skip" in line


def test_an_installed_browser_installs_nothing(tmp_path: Path) -> None:
    browser = tmp_path / "no-chromium"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    assert make_browser(tmp_path, 0) == []
