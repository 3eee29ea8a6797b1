"""An integration's tests skip where its extra is missing, and fail instead in CI."""

from __future__ import annotations

import pytest

from tests.extras import REQUIRE_ENV, missing_extra, required

ABSENT = "factdiff_no_such_module"


@pytest.fixture
def outside_ci(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    return monkeypatch


def test_outside_ci_a_missing_extra_gives_the_reason_to_skip(
    outside_ci: pytest.MonkeyPatch,
) -> None:
    assert not required()
    assert missing_extra(ABSENT, "nothing") == (
        f"{ABSENT} is missing: pip install 'factdiff[nothing]' (make install does)"
    )


@pytest.mark.parametrize(("name", "value"), [("CI", "true"), (REQUIRE_ENV, "1")])
def test_in_ci_a_missing_extra_fails(outside_ci: pytest.MonkeyPatch, name: str, value: str) -> None:
    outside_ci.setenv(name, value)
    assert required()
    with pytest.raises(pytest.fail.Exception, match="must be installed in CI"):
        missing_extra(ABSENT, "nothing")


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_a_ci_variable_that_says_no_is_not_ci(outside_ci: pytest.MonkeyPatch, value: str) -> None:
    outside_ci.setenv("CI", value)
    assert not required()


def test_an_installed_module_never_fails(outside_ci: pytest.MonkeyPatch) -> None:
    outside_ci.setenv(REQUIRE_ENV, "1")
    assert "pytest is missing" in missing_extra("pytest", "dev")  # a reason, unused
