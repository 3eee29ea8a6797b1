"""scripts/docs_reference.py: the generated reference pages name everything they document."""

from __future__ import annotations

import importlib
import re
import sys
from types import ModuleType

import click

import factdiff
from factdiff.cli.main import COMMANDS
from factdiff.settings import SECTIONS, ModelSettings, Settings, env_name
from tests.conftest import ROOT


def _scripts(name: str) -> ModuleType:
    """``scripts/<name>.py``, imported as ``scripts/docs_hooks.py`` imports it."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    return importlib.import_module(name)


def _reference() -> ModuleType:
    return _scripts("docs_reference")


def _expected_commands() -> list[str]:
    """Every command path, found from ``COMMANDS`` and the groups' own subcommands."""
    paths = ["factdiff"]
    for name, (module, attribute, _) in sorted(COMMANDS.items()):
        command = getattr(importlib.import_module(module), attribute)
        paths.append(f"factdiff {name}")
        if isinstance(command, click.Group):
            paths += [f"factdiff {name} {sub}" for sub in sorted(command.commands)]
    return paths


def test_every_command_has_a_section_with_its_usage_and_options() -> None:
    page = _reference().cli_reference()
    headings = re.findall(r"^#{2,4} (factdiff(?: [\w-]+)*)$", page, re.M)
    assert headings == _expected_commands()
    for path in _expected_commands():
        assert f"\n{path} [OPTIONS]" in page, path
    # options, with their defaults, as each command's --help shows them
    assert "| `--older-than` `TEXT` | Dormancy threshold" in page
    assert "| `--port` `INTEGER RANGE` |" in page
    assert "| `8787` |" in page
    assert "DSN (or FACTDIFF\\_DB). | `factdiff.db` |" in page
    assert "`--help`" not in page.split("## factdiff\n")[1]  # the intro says it once
    assert "Sentinel" not in page


def test_command_list_links_resolve_to_headings() -> None:
    script = _reference()
    page = script.cli_reference()
    anchors = {script._anchor(h) for h in re.findall(r"^#{2,4} (.+)$", page, re.M)}
    links = re.findall(r"\]\(#([\w-]+)\)", page)
    assert links
    assert set(links) <= anchors


def test_every_route_of_the_openapi_document_is_described() -> None:
    script = _scripts("docs_openapi")
    document = script.openapi_document()
    page = script.http_reference(document)
    for path, operations in document["paths"].items():
        for method in operations:
            assert f"### {method.upper()} {path}\n" in page, (method, path)
    assert "| `text` | string | yes |" in page  # a request body's fields
    assert "| `401` |" in page  # the answers every route may give, once


def test_every_setting_is_listed_with_its_variable_section_and_default() -> None:
    page = _reference().settings_reference()
    for section, keys in SECTIONS.items():
        assert f"## {section}\n" in page
        for key in keys:
            if key != "models":
                assert f"| `{key}` | `{env_name(key)}` |" in page, key
    flags = "`--older-than` (demote, review retry, worker)"
    assert f"| `older_than` | `FACTDIFF_OLDER_THAN` | {flags} | `14d` |" in page
    for key in ModelSettings.model_fields:
        assert f"| `{key}` |" in page


def test_every_setting_has_a_description() -> None:
    undescribed = [k for k, f in Settings.model_fields.items() if not f.description]
    assert not undescribed
    assert not [k for k, f in ModelSettings.model_fields.items() if not f.description]


def test_the_python_page_renders_every_public_name() -> None:
    page = _reference().python_reference()
    directives = re.findall(r"^::: (\S+)$", page, re.M)
    reference = _reference()
    assert len(directives) == len(factdiff.__all__) + len(reference.INTEGRATIONS)
    assert directives[0] == "factdiff.memory.Memory"
    for name in factdiff.__all__:
        value = getattr(factdiff, name)
        assert f"::: {value.__module__}.{value.__qualname__}\n" in page


def test_the_python_page_ends_with_each_integration_importable() -> None:
    reference = _reference()
    page = reference.python_reference()
    integrations = page[page.index("## Integrations") :]
    for path in reference.INTEGRATIONS:
        module, name = path.rsplit(".", 1)
        assert getattr(importlib.import_module(module), name).__name__ == name
        assert f"::: {path}\n" in integrations


def test_escape_keeps_code_spans_and_escapes_markdown() -> None:
    escape = _scripts("docs_markdown").escape
    assert escape("a | b <c> `x|y_z` *d*") == r"a \| b \<c\> `x|y_z` \*d\*"
    assert escape("two\n  lines") == "two lines"


def test_durations_read_in_their_largest_unit() -> None:
    duration_text = _reference().duration_text
    assert [duration_text(s) for s in (1209600.0, 86400.0, 3600.0, 60.0, 30.0, 0.5)] == [
        "14d", "1d", "1h", "1m", "30s", "500ms",
    ]  # fmt: skip


def test_pages_are_the_same_on_every_run() -> None:
    script = _reference()
    assert script.cli_reference() == script.cli_reference()
    assert script.settings_reference() == script.settings_reference()


def test_a_class_that_points_to_its_module_docstring_gets_it() -> None:
    page = _reference().python_reference()
    memory = page.split("## One agent's memory\n")[1].split("::: factdiff.memory.Memory")[0]
    assert "\n    from factdiff import Memory\n" in memory  # the literal block, as code
    assert "\n:\n" not in memory
    assert "``a``-prefixed twin" in memory


def test_paragraphs_turn_literal_blocks_into_code() -> None:
    paragraphs = _scripts("docs_markdown").paragraphs
    text = "Use it::\n\n    run(x)\n\nThen *more* | less."
    assert paragraphs(text) == "Use it:\n\n    run(x)\n\nThen \\*more\\* \\| less."
