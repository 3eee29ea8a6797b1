"""One resolver: retrieval's keys resolve like every other, durations read one way."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import factdiff.retrieve.settings as retrieve_settings
from factdiff.errors import UsageError
from factdiff.inputs.times import parse_duration
from factdiff.settings import (
    RetrievalSettings,
    TouchMode,
    resolve_retrieval_settings,
    resolve_settings,
)


def test_retrieval_is_a_section_of_the_one_resolution(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text('promote_after = 5\npromote_window = "2d"\nsearch_touch = "top"\n')
    env = {"FACTDIFF_CONFIG": str(path), "FACTDIFF_SEARCH_TOUCH": "none"}
    assert resolve_settings({}, env).retrieval == RetrievalSettings(
        5, timedelta(days=2), TouchMode.NONE
    )
    assert resolve_retrieval_settings(environ=env) == resolve_settings({}, env).retrieval


def test_a_blank_retrieval_flag_falls_through_to_the_environment() -> None:
    env = {"FACTDIFF_PROMOTE_AFTER": "never", "FACTDIFF_PROMOTE_WINDOW": " "}
    settings = resolve_retrieval_settings(promote_after="  ", touch="", environ=env)
    assert settings == RetrievalSettings(promote_after=None)


def test_a_bad_retrieval_value_keeps_its_one_line_message() -> None:
    with pytest.raises(UsageError, match=r"^promote_window: 'soon' is not a duration"):
        resolve_retrieval_settings(promote_window="soon", environ={})
    with pytest.raises(UsageError, match=r"^search touch 'all' is not one of hits, top, none$"):
        resolve_settings({"search_touch": "all"}, {}).retrieval  # noqa: B018


def test_one_duration_reader() -> None:
    import factdiff.settings

    assert factdiff.settings.parse_duration is parse_duration
    assert retrieve_settings.resolve_retrieval_settings is resolve_retrieval_settings
    assert parse_duration("1h30m") == 5400.0
    with pytest.raises(ValueError, match="longer than the longest duration"):
        parse_duration("36501d")


def test_models_that_are_not_a_table_are_one_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text("models = 5\n")
    with pytest.raises(UsageError, match=r"^models: expected a table of models$"):
        resolve_settings({}, {"FACTDIFF_CONFIG": str(path)})


def test_model_param_extras_merge_into_one_table() -> None:
    settings = resolve_settings(
        {}, {}, model_params=("openai:m:extra.a=1", "openai:m:extra.b=x", "openai:m:max_tokens=9")
    )
    params = settings.per_model["openai:m"]
    assert params.extra == {"a": 1, "b": "x"}
    assert params.max_tokens == 9
