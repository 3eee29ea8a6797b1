"""The reading of documented commands that ``tests/acceptance/test_readme.py`` runs."""

from __future__ import annotations

from pathlib import Path

from tests.acceptance.doc_commands import read_docs, runnable, strip_comment


def test_comments_end_outside_quotes_only() -> None:
    assert strip_comment("factdiff search 'the #W2 courier' --json   # hits") == (
        "factdiff search 'the #W2 courier' --json"
    )
    assert strip_comment("curl 'x?q=a#b'") == "curl 'x?q=a#b'"


def test_synopses_use_every_option_and_bind_placeholders_outside_quotes() -> None:
    line = "factdiff report losses [--schema NAME] [--agent A] [--json]   # note"
    bind = {"NAME": "support_calls", "A": "ops-bot"}
    assert runnable(line, bind, {}) == (
        "factdiff report losses --schema support_calls --agent ops-bot --json"
    )
    assert runnable("factdiff search 'A NAME' A", bind, {}) == "factdiff search 'A NAME' ops-bot"
    assert runnable("curl 'localhost:8787/v1'", {}, {"8787": "5555"}) == "curl 'localhost:5555/v1'"


def test_blocks_are_commands_prose_or_a_problem(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "```\nfactdiff stats   # counts\nFOO=1 factdiff demote \\\n    --json\n```\n\n"
        "```\nf = 1 + 2\n```\n\n```python\nfactdiff.check()\n```\n\n"
        "```bash\nfactdiff list\ndocker run x\n```\n",
        encoding="utf-8",
    )
    commands, prose, problems = read_docs(tmp_path)
    assert [(c.line, c.key) for c in commands] == [
        (2, "factdiff stats"),
        (3, "FOO=1 factdiff demote --json"),
        (16, "factdiff list"),
    ]
    assert [p.first_line for p in prose] == ["f = 1 + 2"]
    assert problems == ["not a command of a known program: README.md:17: docker run x"]
