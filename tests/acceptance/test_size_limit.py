"""Texts over the rules extractor's size limit are refused alike by extract, check, compress."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.errors import InputError
from factdiff.extraction.rules import MAX_TEXT_CHARS
from factdiff.schema.builtin import generic_schema
from factdiff.verify.check import check
from tests.acceptance.test_cli import factdiff


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("size") / "huge.txt"
    sentence = "The total is $5 on 2026-03-14. "
    path.write_text(sentence * (MAX_TEXT_CHARS // len(sentence) + 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["extract", "check", "compress"])
def test_cli_refuses_an_oversized_text_with_one_line(huge: Path, command: str) -> None:
    args = [command, str(huge)]
    if command == "check":
        args.append(str(huge))
    run = factdiff(*args)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1
    assert f"reads at most {MAX_TEXT_CHARS:,}" in lines[0]
    assert "split" in lines[0]


def test_check_refuses_in_python_too(huge: Path) -> None:
    with pytest.raises(InputError, match="split the entry"):
        check(huge.read_text(encoding="utf-8"), "The total is $5.", generic_schema())
