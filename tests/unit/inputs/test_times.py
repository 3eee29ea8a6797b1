"""The times and durations factdiff takes: one range, one bound, and nothing derived from a
value in range overflows; a stored value out of range still reads back."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factdiff.demotion.retry import RetryPolicy
from factdiff.errors import InputError, UsageError
from factdiff.inputs.times import MAX_DURATION, TIME_MAX, TIME_MIN, check_time, later
from factdiff.settings import (
    RetrievalSettings,
    parse_duration,
    parse_window,
    resolve_retrieval_settings,
    resolve_settings,
)
from factdiff.store import codec

LONGEST = timedelta(seconds=MAX_DURATION)
OFFSETS = st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m)))
IN_RANGE = st.datetimes(
    min_value=TIME_MIN.replace(tzinfo=None), max_value=TIME_MAX.replace(tzinfo=None)
).map(lambda naive: naive.replace(tzinfo=UTC))


@given(IN_RANGE, OFFSETS)
def test_a_time_in_range_moves_by_any_duration_in_any_offset(
    moment: datetime, zone: timezone
) -> None:
    shown = moment.astimezone(zone)
    for moved in (shown + LONGEST, shown - LONGEST):  # nothing here may overflow
        moved.astimezone(UTC)
        moved.date()
    micros = codec.to_micros(shown)
    assert codec.from_micros(micros) == moment
    local = codec.local_datetime(micros, codec.offset_minutes(shown))
    assert local == shown
    assert local is not None
    assert local.utcoffset() == shown.utcoffset()


def test_the_longest_duration_is_a_wait_the_platform_takes() -> None:
    assert threading.TIMEOUT_MAX > MAX_DURATION


@pytest.mark.parametrize(
    "moment",
    [
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
        datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-14))),
        TIME_MIN - timedelta(microseconds=1),
        TIME_MAX + timedelta(microseconds=1),
    ],
)
def test_a_time_out_of_range_is_refused_naming_the_range(moment: datetime) -> None:
    with pytest.raises(InputError, match=r"0101-01-01T00:00Z to 9899-12-31T23:59:59\.999999Z"):
        codec.to_micros(moment, "occurred_at")
    with pytest.raises(InputError, match="occurred_at"):
        check_time(moment, "occurred_at")


def test_the_ends_of_the_range_are_taken() -> None:
    for moment in (TIME_MIN, TIME_MAX):
        assert codec.from_micros(codec.to_micros(moment)) == moment


@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**31), 2**31 - 1))
def test_any_stored_value_reads_back_without_raising(micros: int, offset: int) -> None:
    codec.from_micros(micros)
    codec.local_datetime(micros, offset)


def test_a_time_stored_before_the_range_reads_back_as_given() -> None:
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14)))  # 0000-12-31T10:00Z
    micros = (early - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    read = codec.local_datetime(micros, 14 * 60)
    assert read == early
    assert read is not None
    assert read.utcoffset() == timedelta(hours=14)
    assert codec.from_micros(micros) == datetime.min.replace(tzinfo=UTC)


def test_later_never_passes_the_end_of_the_range() -> None:
    assert later(TIME_MAX, timedelta(hours=1)) == TIME_MAX
    assert later(datetime.max.replace(tzinfo=UTC), timedelta(days=1)) == TIME_MAX
    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert later(start, timedelta(hours=1)) == start + timedelta(hours=1)


def test_retries_at_the_end_of_the_range_do_not_overflow() -> None:
    policy = RetryPolicy(max_attempts=5)
    assert policy.decide("e", 1, TIME_MAX).retry_at == TIME_MAX
    assert policy.decide_error("e", 1, TIME_MAX, provider=True).retry_at == TIME_MAX
    asked = policy.decide_error("e", 1, TIME_MAX, provider=True, retry_after=1e300)
    assert asked.retry_at == TIME_MAX


def test_a_long_error_streak_does_not_overflow_its_backoff() -> None:
    policy = RetryPolicy(provider_error_budget=100_000, error_max_delay=timedelta(hours=1))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    decision = policy.decide_error("e", 5_000, now, provider=True)
    assert decision.retry_at is not None
    assert decision.retry_at - now <= timedelta(hours=1.25, seconds=1)


def test_a_provider_retry_after_is_at_most_the_longest_duration() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    decision = RetryPolicy().decide_error("e", 1, now, provider=True, retry_after=1e300)
    assert decision.retry_at == now + LONGEST


# -- durations ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["99999999999999d", "36500d1s", "inf", 10**400, 1e300, "1" * 5000, LONGEST * 2]
)
def test_a_duration_longer_than_the_bound_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="longer than the longest duration factdiff takes, 36500d"):
        parse_duration(value)  # type: ignore[arg-type]


def test_the_longest_duration_is_taken() -> None:
    assert parse_duration("36500d") == MAX_DURATION
    assert parse_window("36500d") == LONGEST


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("older_than", "99999999999999d"),
        ("lease", "99999999999999999d"),
        ("heartbeat", "99999999999999999d"),
        ("poll", "99999999999999999d"),
        ("grace", "99999999999999999d"),
        ("backoff", "99999999999999d"),
        ("error_backoff", "99999999999999d"),
        ("error_backoff_max", "99999999999999d"),
        ("deadline", "99999999999999d"),
    ],
)
def test_every_duration_setting_is_bounded_wherever_it_comes_from(
    tmp_path: Path, key: str, value: str
) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text(f'{key} = "{value}"\n')
    for flags, env, where in (
        ({key: value}, {}, "--" + key.replace("_", "-")),
        ({}, {f"FACTDIFF_{key.upper()}": value}, f"FACTDIFF_{key.upper()}"),
        ({}, {"FACTDIFF_CONFIG": str(path)}, f"{path}: {key}"),
    ):
        with pytest.raises(UsageError, match="36500d") as raised:
            resolve_settings(flags, env)
        assert str(raised.value).startswith(where)


def test_a_settings_file_with_a_number_too_long_to_read_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "factdiff.toml"
    path.write_text("lease = " + "1" * 5000 + "\n")
    with pytest.raises(UsageError, match="more than 4300 digits"):
        resolve_settings(None, {"FACTDIFF_CONFIG": str(path)})


def test_the_promote_window_is_bounded_wherever_it_comes_from() -> None:
    with pytest.raises(UsageError, match="36500d"):
        resolve_retrieval_settings(promote_window="99999999999999d", environ={})
    with pytest.raises(UsageError, match="36500d"):
        resolve_retrieval_settings(environ={"FACTDIFF_PROMOTE_WINDOW": "99999999999999d"})
    with pytest.raises(UsageError, match="36500d"):
        RetrievalSettings(promote_window=LONGEST * 2)


def test_the_store_bounds_the_durations_it_is_given() -> None:
    assert codec.duration_micros(LONGEST, "older_than") == int(MAX_DURATION) * 1_000_000
    assert codec.duration_micros(1.5, "lease_seconds") == 1_500_000
    for bad in (MAX_DURATION * 2, float("inf"), float("nan"), LONGEST * 2):
        with pytest.raises(InputError, match="at most 36500d"):
            codec.duration_micros(bad, "lease_seconds")
