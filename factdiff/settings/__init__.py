"""One configuration object, with one precedence: flag > environment > settings file > default.

The settings file is ``factdiff.toml`` in the working directory, or the file named by
``FACTDIFF_CONFIG``; each key below is also the environment variable ``FACTDIFF_<KEY>``
(upper case) and, for the commands that use it, the flag ``--<key>`` (dashes)::

    extractor = "jury:openai:gpt-4.1-mini"   # components (factdiff.compression.components)
    summarizer = "anthropic:claude-sonnet-4-5"
    ladder = "extractive:0.35x,anthropic:claude-sonnet-4-5:0.6x:strict"
    allow_same_model = false
    older_than = "14d"         # demotion: dormancy, retries and budgets
    max_attempts = 3           # verified attempts before review (default: one per rung)
    attempt_retention = "all"  # or "warm-clean": drop the attempts of clean warm entries
    backoff = "1h"             # after a failed attempt n: backoff x 4^(n-1), at most 2 days
    error_backoff = "1m"       # after an error attempt n: error_backoff x 2^(n-1) ...
    error_backoff_max = "1h"   # ... at most this; a provider's Retry-After comes first
    provider_error_budget = 8  # provider outages in a row before review (provider_unavailable)
    error_budget = 3           # other errors in a row (model output, internal) before review
    concurrency = 8            # entries in flight (demote: 1, worker: 4 when unset)
    extract_workers = 2        # processes for offline extraction when concurrency > 1
    in_flight = 64             # models: HTTP requests in flight per provider (default: no bound)
    deadline = "120s"          # one model call, from its first request
    requests_per_call = 3      # HTTP requests per model call (retries included)
    max_tokens = 4096          # the LLM extractor's output budget
    max_output_tokens = 16384  # how far a truncated answer may raise the budget
    llm_http = "auto"          # HTTP under the provider SDKs: aiohttp, httpx or auto
    structured_output = "auto" # auto, json_schema, json_object or prompt (per model too)
    lease = "60s"              # worker
    heartbeat = "20s"
    poll = "1s"
    grace = "30s"
    log_format = "text"        # or "json"
    promote_after = 3           # retrieval: fetches of a warm source that send it back hot
    promote_window = "7d"       #   ... counted over this window ("never" turns it off)
    search_touch = "hits"       # what a search marks as used: hits, top or none

    [models."openai:o3-mini"]  # per-model parameters (factdiff.providers.ModelParams)
    token_param = "max_completion_tokens"
    temperature = "omit"
    extra = {reasoning_effort = "low"}

    [models."openai:smollm2"]  # a local llama.cpp server: no json_schema, JSON mode works
    structured_output = "json_object"

Per-model parameters also come from ``FACTDIFF_MODEL_PARAMS`` (a JSON object of the same
shape) and from ``--model-param 'provider:model:key=value'`` (repeatable; ``extra.NAME=VALUE``
for extra parameters). Durations are ``500ms``, ``30s``, ``5m``, ``1h30m``, ``14d``, ``2w``
or a number of seconds, at most ``MAX_DURATION`` (36500 days), all read by
``factdiff.inputs.times.parse_duration``. A bad value is one line naming where it came from.

The parts: ``model`` (``Settings``: every key, its default and bounds; ``DEFAULTS``),
``sections`` (what each runtime object takes: ``settings.components``, ``.demotion``,
``.worker``, ``.models``, ``.retrieval``; and the ``service`` hand-over of ``factdiff
serve``), ``retrieval`` (the retrieval section and its values), ``sources`` (the file, the
environment, ``--model-param``) and ``resolve`` (the precedence, applied once by
``resolve_settings``). A command resolves its settings once and hands each object its section.
"""

from factdiff.inputs.times import parse_duration
from factdiff.settings.model import DEFAULTS, SECTIONS, ModelSettings, Settings
from factdiff.settings.resolve import (
    KEYS,
    load_settings,
    resolve_retrieval_settings,
    resolve_settings,
)
from factdiff.settings.retrieval import (
    RetrievalSettings,
    TouchMode,
    parse_promote_after,
    parse_touch,
    parse_window,
)
from factdiff.settings.sections import (
    ComponentsSection,
    DemotionSection,
    ModelsSection,
    ServiceSection,
    WorkerSection,
    heartbeat_every,
)
from factdiff.settings.sources import (
    CONFIG_ENV,
    MODEL_PARAMS_ENV,
    env_name,
    flag_name,
    parse_model_param,
)

__all__ = [
    "CONFIG_ENV",
    "DEFAULTS",
    "KEYS",
    "MODEL_PARAMS_ENV",
    "SECTIONS",
    "ComponentsSection",
    "DemotionSection",
    "ModelSettings",
    "ModelsSection",
    "RetrievalSettings",
    "ServiceSection",
    "Settings",
    "TouchMode",
    "WorkerSection",
    "env_name",
    "flag_name",
    "heartbeat_every",
    "load_settings",
    "parse_duration",
    "parse_model_param",
    "parse_promote_after",
    "parse_touch",
    "parse_window",
    "resolve_retrieval_settings",
    "resolve_settings",
]
