"""The generated reference pages of the docs site: the CLI, the HTTP API, the settings, the
Python API.

Each page is written from the thing it documents, so it cannot drift: the CLI page walks the
click command tree of ``factdiff.cli.main`` (usage, help, options with their defaults,
subcommands), the HTTP page reads the OpenAPI document of the FastAPI app, the settings page
reads the settings model (keys, sections, environment variables, flags, defaults) and the
Python page lists ``factdiff.__all__`` for mkdocstrings to render from the docstrings.
``scripts/docs_hooks.py`` adds the pages to the mkdocs build; run this file to print them::

    python scripts/docs_reference.py cli|http|settings|python|openapi
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence

import click
from docs_markdown import escape, paragraphs, schema_type

PAGES = ("cli", "http", "settings", "python")
"""The generated pages, each ``reference/<name>.md`` in the site."""

_NO_DEFAULT = click.Option(["--probe"]).default
"""What click holds as the default of an option declared without one."""

# -- the command line -------------------------------------------------------------------------


def walk_commands(
    command: click.Command, name: str = "factdiff", parent: click.Context | None = None
) -> Iterator[tuple[click.Context, click.Command]]:
    """``(context, command)`` for ``command`` and every subcommand below it, depth first, in
    the order ``--help`` lists them."""
    ctx = click.Context(command, info_name=name, parent=parent)
    yield ctx, command
    if isinstance(command, click.Group):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                yield from walk_commands(sub, sub_name, ctx)


def _default_text(ctx: click.Context, option: click.Option) -> str:
    """The default as ``--help`` would show it, or ``""`` when there is none to show."""
    default = option.default
    if default is None or default is _NO_DEFAULT or callable(default) or option.is_flag:
        return ""
    if option.multiple and not default:
        return ""
    if isinstance(default, Sequence) and not isinstance(default, str):
        return ", ".join(str(item) for item in default)
    return str(default)


def _option_row(ctx: click.Context, option: click.Option) -> str:
    names = ", ".join(f"`{name}`" for name in [*option.opts, *option.secondary_opts])
    if not option.is_flag:
        names += f" `{option.make_metavar(ctx)}`"
    help_text = escape(option.help or "")
    extras = []
    if option.required:
        extras.append("required")
    if option.multiple and "repeatable" not in help_text:
        extras.append("repeatable")
    if isinstance(option.type, click.Choice):
        extras.append("one of " + ", ".join(f"`{choice}`" for choice in option.type.choices))
    if isinstance(option.envvar, str) and option.envvar not in (option.help or ""):
        extras.append(f"env `{option.envvar}`")
    default = _default_text(ctx, option)
    shown = f"`{default}`" if default else ""
    note = f" ({'; '.join(extras)})" if extras else ""
    return f"| {names} | {help_text}{note} | {shown} |"


def _command_section(ctx: click.Context, command: click.Command) -> list[str]:
    depth = max(2, min(ctx.command_path.count(" ") + 1, 4))
    lines = [f"{'#' * depth} {ctx.command_path}", ""]
    if command.help:
        lines += [paragraphs(command.help), ""]
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines += ["```text", usage, "```", ""]
    arguments = [p for p in command.get_params(ctx) if isinstance(p, click.Argument)]
    if arguments:
        described = ", ".join(
            f"`{p.make_metavar(ctx)}`" + (" (optional)" if not p.required else "")
            for p in arguments
        )
        lines += [f"Arguments: {described}.", ""]
    options = [
        p
        for p in command.get_params(ctx)
        if isinstance(p, click.Option) and not p.hidden and p.name != "help"
    ]
    if options:
        lines += ["| option | what | default |", "|---|---|---|"]
        lines += [_option_row(ctx, option) for option in options]
        lines.append("")
    if isinstance(command, click.Group):
        subs = [(name, command.get_command(ctx, name)) for name in command.list_commands(ctx)]
        listed = [
            f"- [`{ctx.command_path} {name}`](#{_anchor(f'{ctx.command_path} {name}')}): "
            f"{escape(_summary(sub))}"
            for name, sub in subs
            if sub is not None and not sub.hidden
        ]
        lines += ["Commands:", "", *listed, ""]
    return lines


def _summary(command: click.Command) -> str:
    """A command's one-line help: its ``short_help``, else its help's first paragraph."""
    if command.short_help:
        return command.short_help
    return " ".join(inspect.cleandoc(command.help or "").split("\n\n")[0].split())


def _anchor(heading: str) -> str:
    """The id mkdocs gives a heading of plain words (``factdiff keys create``)."""
    return re.sub(r"[^\w\- ]", "", heading).strip().lower().replace(" ", "-")


def cli_reference() -> str:
    """The CLI reference page: every command of ``factdiff``, from the commands themselves."""
    from factdiff.cli.main import main

    lines = [
        "# Command line",
        "",
        "Generated from the commands themselves (`factdiff --help` and each command's "
        "`--help` say the same). Exit codes: 0 success (`check`: clean), 1 failure "
        "(`check`: failed; runtime errors), 2 usage or input error, 3 `check`: acceptable "
        "with notes. Errors are one line on stderr, prefixed `error:`. Every command takes "
        "`--help`. How the commands "
        "behave in depth (listings, bulk loading, read-only stores, times, what is printed): "
        "[Schemas, diff and store](../reference.md#cli).",
        "",
    ]
    for ctx, command in walk_commands(main):
        lines += _command_section(ctx, command)
    return "\n".join(lines).rstrip() + "\n"


_UNITS = ((86400, "d"), (3600, "h"), (60, "m"), (1, "s"))


def duration_text(seconds: float) -> str:
    """Seconds in their largest whole unit, days at most (``1209600.0`` -> ``14d``)."""
    for size, unit in _UNITS:
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds * 1000:g}ms"


def _setting_default(key: str) -> str:
    from factdiff.settings import DEFAULTS, Settings, parse_duration

    field = Settings.model_fields[key]
    value = getattr(DEFAULTS, key)
    if value is None or value == {}:
        return "unset"
    if isinstance(value, float) and any(
        getattr(marker, "func", None) is parse_duration for marker in field.metadata
    ):
        return duration_text(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def setting_flags() -> dict[str, dict[str, list[str]]]:
    """Setting key -> flag -> the commands that take it: ``--<key>``, or an option whose help
    names the key's environment variable (``search --touch``: ``FACTDIFF_SEARCH_TOUCH``)."""
    from factdiff.cli.main import main
    from factdiff.settings import KEYS, env_name, flag_name

    flags = {flag_name(key): key for key in KEYS}
    found: dict[str, dict[str, list[str]]] = {}
    for ctx, command in walk_commands(main):
        for param in command.get_params(ctx):
            if not isinstance(param, click.Option) or not param.opts:
                continue
            opt = param.opts[0]
            named = [k for k in KEYS if re.search(rf"\b{env_name(k)}\b", param.help or "")]
            for key in [flags[opt]] if opt in flags else named:
                found.setdefault(key, {}).setdefault(opt, []).append(ctx.command_path)
    return found


def settings_reference() -> str:
    """The settings reference page: every key by section, from the settings model."""
    from factdiff.settings import (
        CONFIG_ENV,
        MODEL_PARAMS_ENV,
        SECTIONS,
        ModelSettings,
        Settings,
        env_name,
    )

    flags = setting_flags()
    lines = [
        "# Settings",
        "",
        "Generated from the settings model. Every setting has one precedence: the command's "
        "flag, then the environment variable, then the settings file (`factdiff.toml` in the "
        f"working directory, or the file `{CONFIG_ENV}` names), then the default. A bad value "
        "is one line naming where it came from. Durations are `500ms`, `30s`, `5m`, `1h30m`, "
        "`14d`, `2w` or a number of seconds, at most `36500d`.",
        "",
    ]
    for section, keys in SECTIONS.items():
        lines += [f"## {section}", "", "| key | environment | flag | default | what |"]
        lines.append("|---|---|---|---|---|")
        for key in keys:
            field_name = "per_model" if key == "models" else key
            field = Settings.model_fields[field_name]
            flag = "; ".join(
                f"`{opt}` ({', '.join(c.removeprefix('factdiff ') for c in commands)})"
                for opt, commands in flags.get(key, {}).items()
            )
            env = f"`{MODEL_PARAMS_ENV}` (JSON)" if key == "models" else f"`{env_name(key)}`"
            lines.append(
                f"| `{key}` | {env} | {flag} | `{_setting_default(field_name)}` "
                f"| {escape(field.description or '')} |"
            )
        lines.append("")
    lines += [
        "## Per-model parameters",
        "",
        'A `[models."provider:model"]` table in the settings file, the same object under '
        f"`{MODEL_PARAMS_ENV}`, or `--model-param 'provider:model:key=value'` (repeatable; "
        "`extra.NAME=VALUE` for extra parameters):",
        "",
        "| key | type | what |",
        "|---|---|---|",
    ]
    properties = ModelSettings.model_json_schema()["properties"]
    for key, field in ModelSettings.model_fields.items():
        kind = escape(schema_type(properties[key]))
        lines.append(f"| `{key}` | {kind} | {escape(field.description or '')} |")
    lines += [
        "",
        "## Other environment variables",
        "",
        "| variable | what |",
        "|---|---|",
        "| `FACTDIFF_DB` | the store of every command: a SQLite path or a `postgresql://` DSN "
        "(default `factdiff.db`; `--db` wins) |",
        f"| `{CONFIG_ENV}` | the settings file (default `./factdiff.toml`) |",
        "| `FACTDIFF_PRICES` | a JSON price table for model costs (a model without a price has "
        "an unknown cost, never 0) |",
        "| `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` | the "
        "providers' own variables |",
        "",
    ]
    return "\n".join(lines).rstrip() + "\n"


# -- the Python API ---------------------------------------------------------------------------


def public_names() -> list[tuple[str, str]]:
    """``(public name, defining path)`` for each name of ``factdiff.__all__``: ``Memory`` first,
    then in ``__all__`` order."""
    import factdiff

    found = []
    for name in factdiff.__all__:
        value = getattr(factdiff, name)
        found.append((name, f"{value.__module__}.{value.__qualname__}"))
    return sorted(found, key=lambda pair: pair[0] != "Memory")


def _module_preface(name: str) -> list[str]:
    """The module docstring of a public name whose docstring points to it, as Markdown."""
    import factdiff

    value = getattr(factdiff, name)
    if "see the module docstring" not in (value.__doc__ or ""):
        return []
    module = sys.modules[value.__module__]
    return [paragraphs(module.__doc__ or ""), ""]


_GROUPS: Mapping[str, tuple[str, ...]] = {
    "One agent's memory": ("Memory",),
    "Checking a summary": (
        "check", "extract", "diff", "CheckResult", "FactDiff", "Finding", "Verdict",
        "Outcome", "Policy", "Fact", "FactRecord",
    ),
    "Fact schemas": (
        "builtin_schema", "generic_schema", "load_schema", "schema_from_dict",
        "schema_from_yaml", "FactSchema", "FieldSpec", "Criticality", "FactType",
    ),
    "Extractors and summarizers": (
        "Extractor", "RulesExtractor", "Summarizer", "ExtractiveSummarizer", "NaiveSummarizer",
    ),
    "Compression, the store and demotion": (
        "compress", "CompressionResult", "Rung", "open_store", "Store", "Demoter", "Worker",
    ),
    "Errors": (
        "FactdiffError", "UsageError", "InputError", "SchemaError", "RuntimeFailure",
        "StoreError",
    ),
}  # fmt: skip
"""Sections of the Python API page; a public name in none of them goes under "Other"."""

INTEGRATIONS = (
    "factdiff.integrations.langgraph.FactdiffStore",
    "factdiff.integrations.openai_agents.FactdiffSession",
)
"""The adapters for agent frameworks (their extras installed), after the public names."""

_SHALLOW = frozenset({"Store"})
"""Public names documented without their members (the store's facade is large)."""


def python_reference() -> str:
    """The Python API page: mkdocstrings directives for ``factdiff``'s public names."""
    lines = [
        "# Python API",
        "",
        "Generated from the docstrings of the names `factdiff` exports (`factdiff.__all__`); "
        "`from factdiff import NAME` imports each one. `Memory` is the start: one agent's "
        "verified memory in five lines, sync and async. `Store` (what `open_store` returns) is "
        "the whole store, every agent: its methods are described in [the store's "
        "reference](../reference.md#store-events-and-hashes).",
        "",
    ]
    paths = dict(public_names())
    placed = {name for names in _GROUPS.values() for name in names}
    groups = {**_GROUPS, "Other": tuple(name for name in paths if name not in placed)}
    for title, names in groups.items():
        present = [name for name in names if name in paths]
        if not present:
            continue
        lines += [f"## {title}", ""]
        for name in present:
            lines += _module_preface(name)
            lines.append(f"::: {paths[name]}")
            if name in _SHALLOW:
                lines += ["    options:", "      members: false"]
            lines.append("")
    lines += ["## Integrations", ""]
    for path in INTEGRATIONS:
        lines += [f"::: {path}", ""]
    return "\n".join(lines).rstrip() + "\n"


def page(name: str) -> str:
    """The Markdown of the generated page ``name`` (one of ``PAGES``)."""
    from docs_openapi import http_reference

    makers = {
        "cli": cli_reference,
        "http": http_reference,
        "settings": settings_reference,
        "python": python_reference,
    }
    return makers[name]()


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1 or argv[0] not in (*PAGES, "openapi"):
        print(f"usage: docs_reference.py {'|'.join((*PAGES, 'openapi'))}", file=sys.stderr)
        return 2
    if argv[0] == "openapi":
        from docs_openapi import openapi_document

        print(json.dumps(openapi_document(), indent=2, sort_keys=True))
    else:
        print(page(argv[0]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
