"""Browser tests skip with a reason without Chromium, and fail instead when CI requires it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acceptance import ui_browser


def test_missing_chromium_skips_with_a_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(ui_browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv(ui_browser.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-chromium is missing: run `make browser`"):
        ui_browser.require_chromium()


def test_missing_chromium_fails_when_required(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(ui_browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv(ui_browser.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="FACTDIFF_REQUIRE_BROWSER=1 but"):
        ui_browser.require_chromium()
