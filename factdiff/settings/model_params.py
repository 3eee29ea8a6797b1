"""``ModelSettings``: the parameters of one model, one table per model in the settings file."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from factdiff.inputs.bounds import COUNT_MAX

__all__ = ["ModelSettings", "StructuredOutput"]

StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]
"""How a model is asked for JSON (``factdiff.providers.structured``)."""


class ModelSettings(BaseModel):
    """Parameters of one model (see ``factdiff.providers.ModelParams``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    token_param: Literal["max_tokens", "max_completion_tokens"] | None = None
    temperature: float | Literal["omit"] | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    max_output_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    structured_output: StructuredOutput | None = None
    extra: dict[str, object] = Field(default_factory=dict)
