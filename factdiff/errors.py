"""One exception tree: a misuse branch (fix your input) and a runtime branch (retry or repair).

::

    FactdiffError
    ├── UsageError                      the caller gave something invalid
    │   ├── SchemaError                 a malformed fact schema (file, line, field)
    │   ├── InvalidValue                a typed value cannot be built (also a ValueError)
    │   ├── StoreFormatRetired          a store made before the 0.1 schema baseline: re-create it
    │   ├── InputError                  an unusable input text, option or id
    │   │   ├── EntryNotFound*          no entry has this id
    │   │   │   └── EntryErased*        it had one, erased by ``forget`` (its tombstone)
    │   │   ├── BadEntry*               one entry of a batch cannot be stored
    │   │   ├── BlankEntry*             an entry's text is empty or only whitespace
    │   │   ├── BadSchemaName°          a schema name that breaks the naming rule
    │   │   ├── WrongTier*              the entry is not in the tier the operation needs
    │   │   ├── SchemaNotRegistered*    no registered schema has this name (and version)
    │   │   ├── SchemaVersionConflict*  same name and version, different content
    │   │   ├── SummaryRefused‡         an operator's edited summary fails its fact diff
    │   │   ├── UnreadableText¤         JSON or TOML its parser cannot read (also a ValueError)
    │   │   ├── DecisionAmbiguous‖      a decision id several agents hold, no agent named
    │   │   ├── NoAgent§                an MCP tool that writes, called without an agent
    │   │   ├── MemoryNotFound§         an MCP client asked for a memory it cannot see
    │   │   ├── UnsupportedFilter∆      a LangGraph search filter operator the store lacks
    │   │   ├── BadExportFile♦          an import file truncated, damaged, or of another version
    │   │   └── StoreNotEmpty♦          an import into a store that already holds records
    │   ├── ApiError§                   a request the HTTP service refuses (status, code)
    │   ├── LangGraphMissing∆           the LangGraph store without its extra (also an ImportError)
    │   └── EmptySourceError†           a blank source: store it as is, do not summarize
    └── RuntimeFailure                  something outside the caller's input failed
        ├── StoreError                  the store is unavailable, outdated or inconsistent
        │   ├── MigrationRequired
        │   ├── ArchiveCorrupt          a cold archive does not read back (also a ValueError)
        │   ├── CompactError¶           a compact record, meta or payload does not decode
        │   ├── IntegrityError*         stored content does not match its hash
        │   └── StoreBusy*              locked by other writers through every retry
        ├── DemotionPaused              a provider refuses every call: demotion stops
        ├── OutputError                 text is not one strict JSON document (also a ValueError)
        └── ProviderError               one model call failed (``failure_class`` names how)
            ├── ProviderUnavailable     retry later, unchanged: never spends an attempt
            │   ├── TransientProviderError   5xx, 529, dropped connection
            │   │   └── DeadlineExceeded     no complete answer within the deadline
            │   └── RateLimited              429 with an optional ``retry_after``
            ├── ProviderAccountError    no entry can get past it: pause, tell an operator
            │   ├── QuotaExhausted           429 insufficient_quota, 402, billing
            │   └── ProviderConfigurationError   401/403/404, bad parameters
            │       ├── ParameterRejected        a parameter this model does not take
            │       └── FormRejected             a structured-output form the endpoint refuses
            ├── ContextTooLong          the input does not fit the model
            └── ModelOutputError        the model answered, but not usably
                ├── Truncated            hit the output token limit
                ├── Refused              refusal or content filter
                └── InvalidOutput        not what was asked (after one re-ask)
                    ├── InvalidJSON
                    └── SchemaViolation

``*`` lives in ``factdiff.store.model`` (exported by ``factdiff.store``); ``°`` in
``factdiff.schema.names``; ``‖`` in ``factdiff.retrieve.attest``; ``†`` in
``factdiff.summarize.base``; ``‡`` in ``factdiff.demotion.review``; ``§`` in ``factdiff.service``;
``¶`` in ``factdiff.store.compact`` (also a ValueError); ``¤`` in ``factdiff.inputs.json_toml``;
``♦`` in ``factdiff.store.transfer_format``; ``∆`` in ``factdiff.integrations.langgraph``
(``UnsupportedFilter`` also a ValueError);
every other class is defined here. Each is a
subclass of the branch drawn above it, so ``except UsageError`` / ``except StoreError`` catch
them all. Control flow branches on these types;
``failure_class`` is the stable name recorded in events and attempt rows. Every message is one line
that says what went wrong and what to do.
"""

from __future__ import annotations


class FactdiffError(Exception):
    """Base of every error factdiff raises on purpose."""


class UsageError(FactdiffError):
    """The caller gave something invalid: a bad schema, file, option or configuration."""


class SchemaError(UsageError):
    """A fact schema is malformed. The message names the file, line and field."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        where = source or "<schema>"
        if line is not None:
            where = f"{where}:{line}"
        if field is not None:
            where = f"{where}: field {field!r}"
        super().__init__(f"{where}: {message}")


class InvalidValue(UsageError, ValueError):
    """A typed fact value cannot be built from what was given: a bad amount, date, time, unit,
    currency, or stored JSON. Also a ``ValueError``, so callers that parse may catch either."""


class InputError(UsageError):
    """An input text cannot be used: unreadable, not UTF-8, or too large."""


class StoreFormatRetired(UsageError):
    """The store was made by an earlier factdiff 0.1 format, before the schema baseline
    (migration ``0001_baseline``): this factdiff neither reads nor upgrades it."""


class RuntimeFailure(FactdiffError):
    """Something outside the caller's input failed: a store, a provider, the disk."""


class StoreError(RuntimeFailure):
    """The memory store is unavailable, outdated or inconsistent."""


class MigrationRequired(StoreError):
    """The store's schema is older than this version of factdiff."""


class ArchiveCorrupt(StoreError, ValueError):
    """A cold archive cannot be read back: an unknown codec or a broken compressed stream.

    The store reports it as an ``IntegrityError`` for the entry; restore from a backup."""


class OutputError(RuntimeFailure, ValueError):
    """Text that should be one strict JSON document is not (prose, partial JSON, duplicate
    keys, NaN). Raised by ``factdiff.providers.jsonout``; model adapters turn it into
    ``InvalidJSON`` or ``InvalidOutput`` for the failed call."""


class DemotionPaused(RuntimeFailure):
    """A provider refuses every call (quota exhausted, bad credentials, model or parameters):
    demotion stops without using any attempt. ``report`` is what the run did until then."""

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report


# -- provider failures ---------------------------------------------------------------------


class ProviderError(RuntimeFailure):
    """A model call failed. Subclasses say how; see the module docstring.

    ``failure_class`` is the stable name for events and attempt records; ``retry_after`` the
    seconds the provider asked us to wait (honoured by the job backoff); ``http_calls`` how
    many HTTP requests the logical call made before it failed.
    """

    failure_class = "provider"
    transient = False

    def __init__(
        self,
        message: str,
        *,
        model: str = "",
        http_calls: int = 0,
        retry_after: float | None = None,
        status_code: int | None = None,
    ) -> None:
        self.model = model
        self.http_calls = http_calls
        self.retry_after = retry_after
        self.status_code = status_code
        self.tokens_in: int | None = None
        self.tokens_out: int | None = None
        self.call: object = None
        """The ``factdiff.providers.ModelCall`` accounting of the failed call, once known."""
        prefix = f"{model}: " if model else ""
        super().__init__(f"{prefix}{message}")


class ProviderUnavailable(ProviderError):
    """The provider cannot answer now; the same call may succeed later, unchanged.

    Never a verification attempt: the entry backs off on its own schedule (Retry-After first)
    and goes to review as ``provider_unavailable`` only after the provider error budget."""

    transient = True


class TransientProviderError(ProviderUnavailable):
    """5xx, 529 overloaded, a dropped connection or a timeout: retry later, unchanged."""

    failure_class = "transient"


class DeadlineExceeded(TransientProviderError):
    """The call's overall deadline passed (a slow trickle, a hung server): retry later."""


class RateLimited(ProviderUnavailable):
    """429 rate limit: wait ``retry_after`` seconds (when given) before the next attempt."""

    failure_class = "rate_limited"


class ProviderAccountError(ProviderError):
    """No entry can get past this (account or setup): pause every worker, tell an operator."""


class QuotaExhausted(ProviderAccountError):
    """429 ``insufficient_quota``, 402 or a billing error: add credit or raise the limit."""

    failure_class = "quota_exhausted"


class ProviderConfigurationError(ProviderAccountError):
    """401/403/404 or a refused request: bad key, no access, unknown model or parameters."""

    failure_class = "configuration"


class ParameterRejected(ProviderConfigurationError):
    """The model rejects a request parameter (``max_tokens``, ``temperature``...); the message
    names the per-model setting that fixes it. ``parameter`` is the rejected name."""

    def __init__(self, message: str, *, parameter: str, **kwargs: object) -> None:
        self.parameter = parameter
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class FormRejected(ProviderConfigurationError):
    """The endpoint refuses the structured-output form of the request (``json_schema``,
    ``json_object``, a forced tool), whatever status it answers with. The client steps down to
    the next form when the ``structured_output`` setting allows one (no attempt spent, no
    outage); ``form`` is the refused form."""

    def __init__(self, message: str, *, form: str, **kwargs: object) -> None:
        self.form = form
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class ContextTooLong(ProviderError):
    """The input does not fit the model's context window: split the entry or use a larger
    model. Retrying unchanged cannot help, so the entry goes to review at once."""

    failure_class = "context_too_long"


class ModelOutputError(ProviderError):
    """The model answered, but not with something usable."""


class Truncated(ModelOutputError):
    """The output hit the token limit (``finish_reason=length`` / ``stop_reason=max_tokens``)
    even after the bounded raise of the output budget. The partial output is never parsed."""

    failure_class = "truncated"


class Refused(ModelOutputError):
    """The model refused (``message.refusal`` / ``stop_reason=refusal``) or a filter stopped it."""

    failure_class = "refused"


class InvalidOutput(ModelOutputError):
    """The model answered, but not with what was asked (after the allowed re-ask)."""

    failure_class = "invalid_output"


class InvalidJSON(InvalidOutput):
    """The answer is not one strict JSON document (prose, partial JSON, duplicate keys, NaN)."""

    failure_class = "invalid_json"


class SchemaViolation(InvalidOutput):
    """The JSON does not match the schema, a value does not parse as its type, or a quote is
    not found in the text (grounding)."""

    failure_class = "schema_violation"


INTERNAL = "internal"
"""The failure class of an unexpected exception while processing one entry."""


def failure_class_of(error: BaseException) -> str:
    """The stable failure name of ``error`` (``internal`` for anything unexpected)."""
    if isinstance(error, ProviderError):
        return error.failure_class
    return INTERNAL


def one_line(error: BaseException, limit: int = 500) -> str:
    """``Type: message`` on one line, at most ``limit`` characters (for events and logs)."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    line = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return line[:limit]
