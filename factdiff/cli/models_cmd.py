"""``factdiff models check``: whether every configured model can do its role's work."""

from __future__ import annotations

import sys

import click

from factdiff.cli.options import json_option
from factdiff.cli.render import echo, echo_json
from factdiff.cli.settings_options import (
    MODEL_KEYS,
    model_param_option,
    setting_options,
    settings_from,
)
from factdiff.ops.model_check import (
    ExtractionProbe,
    ModelProbe,
    RoleCheck,
    SummaryProbe,
    check_models,
)
from factdiff.present.wording import plural


@click.group("models")
def models_group() -> None:
    """Check every configured model: reachable, listed, structured output, one extraction.

    ``models check`` probes each endpoint and model the settings configure."""


@models_group.command("check")
@setting_options("extractor", "summarizer", "ladder", *MODEL_KEYS)
@model_param_option
@json_option
def check_command(model_params: tuple[str, ...], as_json: bool, **options: object) -> None:
    """Probe the extractor's and every summarizer's model on the worked example.

    For each endpoint and model: reachable (a refused connection is said as such), listed,
    the structured-output form that works, one extraction and its facts (extractor), one
    summary and its verification (summarizer), latencies and tokens. Exit 0 only when every
    configured role can do its work, else 1.
    """
    settings = settings_from(options, model_params)
    from factdiff.demo.corpus import WORKED_EXAMPLE

    roles, probes = check_models(settings, WORKED_EXAMPLE.content)
    ok = all(role.ok for role in roles)
    if as_json:
        echo_json(
            {
                "ok": ok,
                "roles": [role.to_json() for role in roles],
                "models": [probe.to_json() for probe in probes],
            }
        )
    else:
        for probe in probes:
            _print_probe(probe)
        for role in roles:
            echo(_role_line(role))
    sys.exit(0 if ok else 1)


def _role_line(role: RoleCheck) -> str:
    state = "ok" if role.ok else "CANNOT WORK"
    where = ", ".join(role.models) if role.models else "offline, nothing to reach"
    return f"{role.role} {role.spec}: {state} ({where})"


def _yes(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def _print_probe(probe: ModelProbe) -> None:
    echo(f"{probe.model} at {probe.base_url or 'the provider API'} ({', '.join(probe.roles)})")
    echo(f"  reachable: {_yes(probe.reachable)}; model listed: {_yes(probe.listed)}")
    if probe.error:
        echo(f"  {probe.error}")
    if probe.extraction is not None:
        echo(f"  structured output: {probe.structured_output or 'none worked'}")
        echo("  extraction: " + _work_line(probe.extraction))
        for name, value in probe.extraction.facts.items():
            echo(f"    {name}: {value}")
    if probe.summary is not None:
        echo("  summary: " + _work_line(probe.summary))
        if probe.summary.ok:
            echo(f"    {probe.summary.text}")
            missing = ", ".join(probe.summary.missing) or "nothing"
            echo(f"    verified: {probe.summary.outcome} (missing: {missing})")


def _work_line(probe: ExtractionProbe | SummaryProbe) -> str:
    work = probe.work
    seconds = (work.latency_ms or 0) / 1000
    tokens = f"{plural(work.tokens_in, 'token')} in, {work.tokens_out} out"
    head = f"{seconds:.1f} s, {plural(len(work.calls), 'call')}, {tokens}"
    if not probe.ok:
        return f"FAILED after {head}: {probe.error}"
    if isinstance(probe, ExtractionProbe):
        return f"{plural(len(probe.facts), 'field')} found in {head}"
    words = plural(probe.words, "word")
    return f"{words} (budget {probe.budget_words}) in {head}"
