"""The settings file sits below flags and environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.compression.components import (
    pipeline_components,
    resolve_extractor_spec,
    resolve_summarizer_spec,
)
from factdiff.errors import UsageError
from factdiff.settings import DEFAULTS, load_settings, parse_duration, resolve_settings


def write(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "factdiff.toml"
    path.write_text(text)
    return {"FACTDIFF_CONFIG": str(path)}


def test_precedence_flag_then_env_then_file_then_default(tmp_path: Path) -> None:
    env = write(tmp_path, 'extractor = "jury:openai:gpt-4.1-mini"\nsummarizer = "naive"\n')
    assert resolve_summarizer_spec(None, env) == "naive"
    assert resolve_summarizer_spec(None, {**env, "FACTDIFF_SUMMARIZER": "extractive"}) == (
        "extractive"
    )
    assert resolve_summarizer_spec("openai:gpt-4.1", env) == "openai:gpt-4.1"
    assert resolve_extractor_spec(None, env) == "jury:openai:gpt-4.1-mini"
    assert resolve_extractor_spec(None, {}) == "rules"


def test_ladder_from_the_file_and_same_model_refusal(tmp_path: Path) -> None:
    env = write(tmp_path, 'ladder = "naive:40,extractive:0.6x:strict"\n')
    _, rungs = pipeline_components(environ=env)
    assert [r.summarizer.identity for r in rungs] == ["naive", "extractive"]
    with pytest.raises(UsageError, match="both openai:m"):
        pipeline_components(extractor="openai:m", summarizer="openai:m", environ={})


@pytest.mark.parametrize(
    ("text", "needle"),
    [("extractor = [", "invalid TOML"), ('colour = "blue"\n', "colour"), ("", "")],
)
def test_bad_settings_files_name_the_file(tmp_path: Path, text: str, needle: str) -> None:
    env = write(tmp_path, text)
    if not needle:
        assert load_settings(env).extractor == "rules"
        return
    with pytest.raises(UsageError, match=needle) as caught:
        load_settings(env)
    assert str(tmp_path) in str(caught.value)


def test_a_named_file_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read settings"):
        load_settings({"FACTDIFF_CONFIG": str(tmp_path / "nope.toml")})


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("500ms", 0.5), ("30s", 30), ("1h30m", 5400), ("14d", 14 * 86400), ("2w", 1209600), ("7", 7)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "-5s", "5x", "1h 2"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


def test_a_bad_value_names_where_it_came_from(tmp_path: Path) -> None:
    env = write(tmp_path, 'deadline = "soon"\n')
    with pytest.raises(UsageError, match=r"factdiff.toml: deadline: .*not a duration"):
        resolve_settings(None, env)
    with pytest.raises(UsageError, match=r"^FACTDIFF_CONCURRENCY: "):
        resolve_settings(None, {"FACTDIFF_CONCURRENCY": "0"})
    with pytest.raises(UsageError, match=r"^--lease: "):
        resolve_settings({"lease": "0s"}, {})
    with pytest.raises(UsageError, match=r"heartbeat .* must be shorter than lease"):
        resolve_settings({"heartbeat": "1m", "lease": "30s"}, {})
    with pytest.raises(UsageError, match="provider:model:key=value"):
        resolve_settings(None, {}, model_params=("openai:o3-mini",))


def test_every_setting_follows_flag_env_file_default(tmp_path: Path) -> None:
    env = write(tmp_path, 'error_budget = 5\nlease = "90s"\nlog_format = "json"\n')
    env["FACTDIFF_LEASE"] = "120s"
    settings = resolve_settings({"error_budget": None, "grace": "5s"}, env)
    assert settings.error_budget == 5  # file
    assert settings.lease == 120  # environment over file
    assert settings.grace == 5  # flag
    assert settings.log_format == "json"
    assert settings.poll == DEFAULTS.poll == 1.0  # default
    assert DEFAULTS.concurrency is None  # each command has its own default


def test_a_summarizer_closer_to_the_command_replaces_a_ladder(tmp_path: Path) -> None:
    env = write(tmp_path, 'ladder = "naive:40,extractive:0.6x"\n')
    assert resolve_settings(None, env).ladder == "naive:40,extractive:0.6x"
    assert resolve_settings(None, {**env, "FACTDIFF_SUMMARIZER": "naive"}).ladder is None
    both = resolve_settings({"summarizer": "naive", "ladder": "extractive:0.6x"}, env)
    assert both.ladder == "extractive:0.6x"
