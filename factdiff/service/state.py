"""What one running API holds: its store provider, settings, limits and the event broadcaster."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from factdiff.ops.metrics import ProcessMetrics
    from factdiff.service.stores import StoreProvider
    from factdiff.settings import Settings

DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024
"""Request bodies over this get 413 (an entry may be 16 MiB of UTF-8, escaped in JSON)."""


@dataclass
class ServiceState:
    """The app's state: ``app.state.factdiff``."""

    stores: StoreProvider
    metrics: ProcessMetrics
    settings: Settings
    """The settings, resolved once when the app was made (file, environment, defaults)."""
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    event_poll_seconds: float = 0.5
    extra: dict[str, object] = field(default_factory=dict)


def state_of(app: FastAPI) -> ServiceState:
    """The ``ServiceState`` of ``app``."""
    found = app.state.factdiff
    assert isinstance(found, ServiceState)
    return found
