"""The settings file sits below flags and environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdiff.config import pipeline_components, resolve_extractor_spec, resolve_summarizer_spec
from factdiff.errors import UsageError
from factdiff.settings import load_settings


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
