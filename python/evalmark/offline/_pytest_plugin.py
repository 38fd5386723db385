"""The network guard in pytest: ``--evalmark-offline`` and the ``evalmark_network`` marker.

``--evalmark-offline[=on|off|auto]``
    ``on`` (the bare flag) guards the whole session: a test that opens a connection to anything
    but loopback or a unix socket fails with :class:`~evalmark.errors.NetworkBlockedError`
    naming the host and the line. ``auto`` (the default) guards it when ``EVALMARK_OFFLINE=1``,
    when ``CI`` is set, or when the record mode is replay by choice
    (``--evalmark-record-mode=replay`` or ``EVALMARK_RECORD_MODE=replay``); a plain run that
    chose nothing keeps the network. ``off`` never guards (also ``EVALMARK_OFFLINE=0``).
``--evalmark-allow=ENTRY``
    allow one more host, network or unix socket in the session guard (repeatable; also
    ``EVALMARK_OFFLINE_ALLOW=a,b``).

Markers: ``@pytest.mark.evalmark_network`` lets one test use the network (with arguments,
``@pytest.mark.evalmark_network("api.example.com")``, only those hosts besides the session's
allowlist); ``@pytest.mark.evalmark_offline(*allow)`` guards one test whatever the session
does (``allow=[]`` blocks loopback too). Both cover the test's setup, call and teardown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evalmark.offline._policy import parse_allow
from evalmark.offline._run import Guard, decide, environment_allow, record_hint

_GUARD_KEY = pytest.StashKey["Guard | None"]()
_ITEM_KEY = pytest.StashKey["Guard | None"]()
_REASON_KEY = pytest.StashKey[str]()
_CHOICES = ("on", "off", "auto")
_RECORD = "pytest --evalmark-record-mode=record-missing"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--evalmark-offline`` and ``--evalmark-allow``."""
    group = parser.getgroup("evalmark", "evalmark evaluation reports and cassettes")
    group.addoption(
        "--evalmark-offline",
        nargs="?",
        const="on",
        default="auto",
        choices=_CHOICES,
        help="block outbound network (all but loopback and unix sockets) for the session: on, "
        "off, or auto (default: on under CI, with EVALMARK_OFFLINE=1 or in replay mode)",
    )
    group.addoption(
        "--evalmark-allow",
        action="append",
        default=[],
        metavar="ENTRY",
        help="a host, network (CIDR) or unix:PATH the offline session may still reach (repeatable)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers and open the session guard when the run is offline."""
    config.addinivalue_line(
        "markers",
        "evalmark_network(*allow): let this test use the network (only the given hosts, "
        "networks or unix:PATHs besides the session's allowlist, when some are given)",
    )
    config.addinivalue_line(
        "markers",
        "evalmark_offline(*allow): block the network for this test (allowing loopback and "
        "unix sockets, or exactly the given entries; allow=[] blocks loopback too)",
    )
    choice = config.getoption("--evalmark-offline")
    flag = {"on": True, "off": False}.get(choice)
    mode = config.getoption("--evalmark-record-mode", default=None)
    try:
        decision = decide(
            flag=flag,
            record_mode=mode,
            default=False,
            flag_names=("--evalmark-offline", "--evalmark-offline=off"),
        )
        allow = (*environment_allow(), *config.getoption("--evalmark-allow"))
        guard = None
        if decision.enabled:
            guard = Guard(allow, reason=decision.reason, hint=record_hint(_RECORD, ci=decision.ci))
    except ValueError as exc:
        raise pytest.UsageError(f"evalmark offline: {exc}") from None
    if guard is not None:
        guard.install()
    config.stash[_GUARD_KEY] = guard
    config.stash[_REASON_KEY] = decision.reason


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the session guard."""
    guard = config.stash.get(_GUARD_KEY, None)
    if guard is not None:
        guard.uninstall()
        config.stash[_GUARD_KEY] = None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say when the session runs offline, and why."""
    guard = config.stash.get(_GUARD_KEY, None)
    if guard is None:
        return []
    return [
        f"evalmark: network blocked ({config.stash[_REASON_KEY]}); allowed: "
        f"{guard.policy.describe()}"
    ]


def _test_guard(item: pytest.Item) -> Guard | None:
    session: Guard | None = item.config.stash.get(_GUARD_KEY, None)
    network = item.get_closest_marker("evalmark_network")
    offline = item.get_closest_marker("evalmark_offline")
    if network is not None and offline is not None:
        raise pytest.UsageError(
            f"{item.nodeid}: evalmark_network and evalmark_offline contradict each other; keep one"
        )
    try:
        if offline is not None:
            if offline.args and "allow" in offline.kwargs:
                raise ValueError("evalmark_offline: give the entries or allow=[...], not both")
            entries = offline.kwargs.get("allow", offline.args or None)
            return Guard(
                entries,
                reason=f"{item.nodeid} is marked evalmark_offline",
                hint=record_hint(_RECORD),
            )
        if network is None:
            return None
        if not network.args:
            return Guard(["*"], reason=f"{item.nodeid} is marked evalmark_network")
        parse_allow(network.args)  # a bad entry is an error even when the session is online
        if session is None:
            return None  # the session is online: the test reaches everything already
        return Guard(
            session.policy.extended(network.args).entries,
            reason=session.reason,
            hint=session.hint,
        )
    except (TypeError, ValueError) as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Read each test's network marker (a bad allowlist entry is a usage error)."""
    for item in items:
        item.stash[_ITEM_KEY] = _test_guard(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    """Apply a test's network marker to its setup, call and teardown."""
    guard = item.stash.get(_ITEM_KEY, None)
    if guard is None:
        return (yield)
    with guard:
        return (yield)
