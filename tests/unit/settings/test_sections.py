"""Each runtime object takes its section of the one resolved settings object."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from factdiff.demotion.demoter import DemotionSettings
from factdiff.demotion.retry import RetryPolicy
from factdiff.demotion.worker import DEFAULT_CONCURRENCY, WorkerSettings
from factdiff.settings import (
    DEFAULTS,
    KEYS,
    SECTIONS,
    ServiceSection,
    Settings,
    WorkerSection,
    heartbeat_every,
    resolve_settings,
)


def test_every_key_belongs_to_exactly_one_section() -> None:
    sectioned = [key for keys in SECTIONS.values() for key in keys]
    assert sorted(sectioned) == sorted(KEYS)
    assert len(sectioned) == len(set(sectioned))


def test_sections_carry_the_resolved_values_from_every_layer(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text(
        'lease = "2m"\npoll = "5s"\nbackoff = "2h"\n[models."openai:m"]\nmax_tokens = 9\n'
    )
    env = {"FACTDIFF_CONFIG": str(path), "FACTDIFF_POLL": "3s", "FACTDIFF_DEADLINE": "1m"}
    settings = resolve_settings({"grace": "10s", "poll": None}, env)
    assert settings.worker == WorkerSection(
        lease=120.0, heartbeat=None, poll=3.0, grace=10.0, log_format="text"
    )
    assert settings.worker.heartbeat_every == 40.0
    assert settings.demotion.backoff == 7200.0
    assert settings.models.deadline == 60.0
    assert settings.models.params["openai:m"].max_tokens == 9
    assert settings.model("openai:m").max_tokens == 9
    assert settings.components.extractor == "rules"


def test_the_models_table_keeps_its_key_in_files_and_messages(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text('[models."openai:m"]\ntemperature = "hot"\n')
    from factdiff.errors import UsageError

    with pytest.raises(UsageError, match=r"factdiff.toml: models\.openai:m\.temperature"):
        resolve_settings({}, {"FACTDIFF_CONFIG": str(path)})
    assert Settings.model_validate({"models": {"a:b": {"max_tokens": 2}}}).model("a:b").max_tokens


def test_one_heartbeat_rule_for_every_holder_of_a_lease() -> None:
    assert heartbeat_every(60.0, None) == 20.0
    assert heartbeat_every(0.06, None) == 0.05
    assert heartbeat_every(60.0, 5.0) == 5.0
    settings = resolve_settings({"lease": "90s"}, {})
    assert settings.heartbeat_every == settings.worker.heartbeat_every == 30.0
    assert WorkerSettings.from_settings(settings).heartbeat_every == 30.0
    assert DemotionSettings(lease_seconds=90.0).heartbeat_every == 30.0
    assert WorkerSettings(lease_seconds=9.0, heartbeat_seconds=1.0).heartbeat_every == 1.0


def test_worker_settings_take_the_worker_section_and_demotion_concurrency() -> None:
    default = WorkerSettings.from_settings(DEFAULTS, agent="a")
    assert default == WorkerSettings(agent="a")
    assert default.concurrency == DEFAULT_CONCURRENCY
    assert default.lease_seconds == DEFAULTS.worker.lease
    chosen = WorkerSettings.from_settings(
        resolve_settings({"concurrency": 2, "lease": "30s", "grace": "1s"}, {})
    )
    assert (chosen.concurrency, chosen.lease_seconds, chosen.grace_seconds) == (2, 30.0, 1.0)


def test_demotion_settings_take_the_demotion_section() -> None:
    settings = resolve_settings(
        {"older_than": "3d", "backoff": "5m", "error_budget": 7, "lease": "40s"}, {}
    )
    demotion = DemotionSettings.from_settings(settings)
    assert demotion.older_than == timedelta(days=3)
    assert demotion.lease_seconds == 40.0
    assert demotion.retry == RetryPolicy.from_section(settings.demotion, len(demotion.ladder))
    assert demotion.retry.base_delay == timedelta(minutes=5)
    assert demotion.retry.error_budget == 7
    assert demotion.retry.max_attempts == len(demotion.ladder)  # one per rung when unset


def test_defaults_are_defined_once() -> None:
    assert DemotionSettings.from_settings(DEFAULTS).retry == RetryPolicy(max_attempts=3)
    assert DemotionSettings().older_than == timedelta(seconds=DEFAULTS.demotion.older_than)
    worker = WorkerSettings()
    assert (worker.lease_seconds, worker.poll_seconds, worker.grace_seconds) == (
        DEFAULTS.lease,
        DEFAULTS.poll,
        DEFAULTS.grace,
    )


def test_the_service_section_travels_through_the_environment() -> None:
    section = ServiceSection("postgresql://db/x", 1024)
    environ = section.to_environ()
    assert environ == {
        "FACTDIFF_SERVE_DB": "postgresql://db/x",
        "FACTDIFF_SERVE_MAX_BODY_BYTES": "1024",
    }
    assert ServiceSection.from_environ(environ) == section
    assert ServiceSection.from_environ({"FACTDIFF_SERVE_DB": "m.db"}).max_body_bytes is None
    with pytest.raises(RuntimeError, match="start the API with `factdiff serve`"):
        ServiceSection.from_environ({})
