"""The optional settings file: ``factdiff.toml`` in the working directory, or the file named
by ``FACTDIFF_CONFIG``. Its values sit below flags and environment variables::

    extractor = "jury:openai:gpt-4.1-mini"
    summarizer = "anthropic:claude-sonnet-4-5"
    ladder = "extractive:0.35x,anthropic:claude-sonnet-4-5:0.6x:strict"
    allow_same_model = false
    promote_after = 3           # retrieval: fetches of a warm source that send it back hot
    promote_window = "7d"       #   ... counted over this window ("never" turns it off)
    search_touch = "hits"       # what a search marks as used: hits, top or none

Precedence for every component: command-line flag, then environment variable, then this
file, then the built-in default.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from factdiff.errors import UsageError

CONFIG_ENV = "FACTDIFF_CONFIG"
DEFAULT_FILE = "factdiff.toml"


class Settings(BaseModel):
    """What the settings file may hold; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extractor: str | None = None
    summarizer: str | None = None
    ladder: str | None = None
    allow_same_model: bool = False
    promote_after: int | str | None = None
    promote_window: str | None = None
    search_touch: str | None = None


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings file's values, or defaults when there is no file."""
    env = os.environ if environ is None else environ
    named = env.get(CONFIG_ENV, "").strip()
    path = Path(named) if named else Path(DEFAULT_FILE)
    if not named and not path.is_file():
        return Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read settings: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid TOML: {exc}") from None
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise UsageError(f"{path}: {where}: {error['msg']}") from None
