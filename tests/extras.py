"""Tests of an optional extra's integration: skipped, with the reason, where the extra is not
installed; failed instead in CI (``CI`` set, or ``FACTDIFF_REQUIRE_EXTRAS=1`` as ``.ci/run``
sets it), where ``make install`` installs every extra.

Use as ``pytest.importorskip("langgraph", reason=missing_extra("langgraph", "langgraph"))``.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

REQUIRE_ENV = "FACTDIFF_REQUIRE_EXTRAS"


def required() -> bool:
    """Whether a missing extra fails the tests (CI) rather than skipping them."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false")
    return ci or os.environ.get(REQUIRE_ENV) == "1"


def missing_extra(module: str, extra: str) -> str:
    """The skip reason for a missing ``module`` (of the extra ``extra``); in CI, when it is
    missing, the test fails here instead."""
    reason = f"{module} is missing: pip install 'factdiff[{extra}]' (make install does)"
    if required() and importlib.util.find_spec(module) is None:
        pytest.fail(f"{reason}; it must be installed in CI", pytrace=False)
    return reason
