"""The README's Python quick start, run as printed in a fresh folder."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

_PYTHON_FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)


def quick_start() -> str:
    """The README's Python block that opens a ``Memory``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in _PYTHON_FENCE.findall(readme) if "Memory(" in b]
    return str(block)


def test_the_five_line_quick_start_gives_a_verified_searchable_memory(tmp_path: Path) -> None:
    code = quick_start()
    assert len([line for line in code.splitlines() if line.strip()]) == 5
    shown = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert "(agent support-bot, tier warm)" in shown  # compressed and verified clean
    assert "inventory.money: 1249 USD" in shown
    assert "payment_deadline: 2026-03-20" in shown
    assert "known gaps:\n- none" in shown
    assert (tmp_path / "memory.db").exists()
