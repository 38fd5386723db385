"""Shared test configuration: hypothesis profiles chosen by environment."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# No profile has a deadline or the too_slow health check: both time the machine, and a busy one
# fails them. A test that lists its own suppressed health checks lists too_slow with them.
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# ten times the ci profile's examples (`make test-deep`); tests/budget.py scales per-test counts
settings.register_profile(
    "deep",
    max_examples=3000,
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _no_history_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs made by tests write no history unless a test asks for it (tests/history do)."""
    monkeypatch.setenv("EVALMARK_HISTORY", "off")


@pytest.fixture(autouse=True)
def _not_a_github_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs made by tests print no GitHub annotations, even on GitHub (tests/cli asks)."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


# Sessions that tests start in a subprocess (and their xdist workers) load neither Hypothesis's
# plugin nor anyio's: importing Hypothesis alone takes 1.5 s of CPU in every such interpreter,
# and no project those tests write uses either. Nor the plugins the producers extra brings
# (deepeval's, langsmith's, pytest-asyncio, pytest-repeat, pytest-rerunfailures).
NESTED_SESSION_OPTIONS = (
    "-p no:hypothesispytest -p no:anyio -p no:deepeval -p no:langsmith_plugin -p no:asyncio "
    "-p no:repeat -p no:rerunfailures"
)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's ``pytester`` (which clears ``PYTEST_ADDOPTS``), with ``NESTED_SESSION_OPTIONS``."""
    monkeypatch.setenv("PYTEST_ADDOPTS", NESTED_SESSION_OPTIONS)
    return pytester
