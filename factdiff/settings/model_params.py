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

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    token_param: Literal["max_tokens", "max_completion_tokens"] | None = None
    """The name the output budget is sent under (unset: OpenAI's own API gets
    ``max_completion_tokens``, compatible servers ``max_tokens``)."""
    temperature: float | Literal["omit"] | None = None
    """The sampling temperature, or ``omit`` for models that refuse one."""
    max_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    """The first output budget for this model."""
    max_output_tokens: int | None = Field(default=None, ge=1, le=COUNT_MAX)
    """The cap when a truncated answer raises the budget."""
    structured_output: StructuredOutput | None = None
    """This model's form of structured output (see the ``structured_output`` setting)."""
    extra: dict[str, object] = Field(default_factory=dict)
    """Extra request parameters, sent as they are (``reasoning_effort``...)."""
