"""The allowlist and the rule that decides when a run is offline."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from evalmark.models import _modes as modes
from evalmark.offline._policy import DEFAULT_ALLOW, parse_allow, parse_ip
from evalmark.offline._run import (
    ALLOW_ENV,
    MODE_ENV,
    _ci_is_set,
    decide,
    environment_allow,
    record_hint,
)


def ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


def test_the_default_allows_loopback_and_unix_sockets_only() -> None:
    policy = parse_allow(None)
    assert policy.entries == DEFAULT_ALLOW == ("loopback", "unix")
    for address in ("127.0.0.1", "127.9.9.9", "::1", "0.0.0.0", "::"):
        assert policy.allows_host(address), address
    for name in ("localhost", "LOCALHOST.", "db.localhost", "ip6-localhost", socket.gethostname()):
        assert policy.allows_name(name), name
    for host in ("10.0.0.1", "192.168.1.1", "::ffff:8.8.8.8", "api.example.com", "localhost.com"):
        assert not policy.allows_host(host), host
    assert policy.allows_host("::ffff:127.0.0.1")  # IPv4-mapped loopback
    assert policy.allows_unix("/run/anything.sock")


def test_an_empty_allowlist_allows_nothing_and_star_everything() -> None:
    empty = parse_allow([])
    assert not empty.allows_host("127.0.0.1")
    assert not empty.allows_name("localhost")
    assert not empty.allows_unix("/tmp/x.sock")
    assert empty.describe() == "nothing (not even loopback)"
    everything = parse_allow(["*"])
    assert everything.allows_host("8.8.8.8") and everything.allows_unix("/x")
    assert everything.describe() == "everything"


def test_hosts_wildcards_networks_and_unix_paths() -> None:
    policy = parse_allow(
        [
            "API.Example.com.",
            "*.corp.example",
            "10.0.0.0/8",
            "[2001:db8::1]",
            "unix:/run/app/*.sock",
            "unix:@abstract",
        ]
    )
    assert policy.allows_name("api.example.com")
    assert policy.allows_name("a.b.corp.example")
    assert not policy.allows_name("corp.example")  # the wildcard is below the domain only
    assert not policy.allows_name("www.example.com")
    assert policy.allows_host("10.20.30.40") and not policy.allows_host("11.0.0.1")
    assert policy.allows_host("2001:db8::1") and not policy.allows_host("2001:db8::2")
    assert not policy.allows_host("127.0.0.1")  # loopback is not in this list
    assert policy.allows_unix("/run/app/api.sock") and not policy.allows_unix("/run/other.sock")
    assert policy.allows_unix("\0abstract")
    assert policy.names_entry("api.example.com") and not policy.names_entry("localhost")


def test_remembered_addresses_and_extending() -> None:
    policy = parse_allow(["api.example.com"])
    policy.remember(["203.0.113.5", "not an address"])
    assert policy.allows_address(ip("203.0.113.5"))
    wider = policy.extended(["loopback"])
    assert wider.allows_host("127.0.0.1") and wider.allows_name("api.example.com")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("api.example.com:443", "ports are not part of an entry"),
        ("http://api.example.com", "is not understood"),
        ("unix:", "names no path"),
        ("exa mple.com", "is not understood"),
    ],
)
def test_a_bad_entry_is_named(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        parse_allow([entry])
    if "understood" in message:
        assert repr(entry) in str(caught.value)


def test_a_string_is_not_a_list_of_entries() -> None:
    with pytest.raises(TypeError, match=r"allow=\['localhost'\]"):
        parse_allow("localhost")
    with pytest.raises(TypeError, match="strings"):
        parse_allow([3])  # type: ignore[list-item]


def test_parse_ip() -> None:
    assert parse_ip("[::1]") == ip("::1")
    assert parse_ip("fe80::1%eth0") == ip("fe80::1")
    assert parse_ip("::ffff:10.0.0.1") == ip("10.0.0.1")
    assert parse_ip("example.com") is None


# --------------------------------------------------------------------------- when a run is offline


@pytest.mark.parametrize(
    ("flag", "mode", "env", "default", "enabled", "reason"),
    [
        (True, "record-missing", {"EVALMARK_OFFLINE": "0"}, False, True, "--offline was given"),
        (False, None, {"CI": "true"}, True, False, "--no-offline was given"),
        (None, "record-missing", {"EVALMARK_OFFLINE": "1"}, False, True, "EVALMARK_OFFLINE=1"),
        (None, "replay", {"EVALMARK_OFFLINE": "off", "CI": "1"}, True, False, "EVALMARK_OFFLINE"),
        (None, "record-missing", {"CI": "true"}, False, True, "CI is set"),
        (None, "replay", {}, False, True, "the record mode is replay"),
        (None, "RECORD_MISSING", {}, True, False, "the record mode is record-missing"),
        (None, None, {MODE_ENV: "replay"}, False, True, f"{MODE_ENV} is replay"),
        (None, None, {MODE_ENV: "rewrite"}, True, False, f"{MODE_ENV} is rewrite"),
        (None, None, {"CI": "false"}, True, True, "the record mode is replay, the default"),
        (None, None, {"CI": "0"}, False, False, "no record mode was chosen"),
    ],
)
def test_the_first_rule_that_applies_decides(
    flag: bool | None,
    mode: str | None,
    env: dict[str, str],
    default: bool,
    enabled: bool,
    reason: str,
) -> None:
    decision = decide(flag=flag, record_mode=mode, environ=env, default=default)
    assert decision.enabled is enabled
    assert decision.reason.startswith(reason)


def test_a_bad_offline_variable_is_named() -> None:
    with pytest.raises(ValueError, match="EVALMARK_OFFLINE='maybe'"):
        decide(environ={"EVALMARK_OFFLINE": "maybe"})


def test_the_environment_allowlist_adds_to_loopback() -> None:
    assert environment_allow({}) == DEFAULT_ALLOW
    assert environment_allow({ALLOW_ENV: " api.example.com, 10.0.0.0/8 ,"}) == (
        *DEFAULT_ALLOW,
        "api.example.com",
        "10.0.0.0/8",
    )
    with pytest.raises(ValueError, match=ALLOW_ENV):
        environment_allow({ALLOW_ENV: "http://x"})


def test_the_record_rule_is_the_one_of_the_cassettes() -> None:
    # The guard repeats these so that it loads without the models package.
    assert MODE_ENV == modes.MODE_ENV
    for value in ("", "0", "false", "FALSE", "no", " no ", "1", "true", "yes", "anything", "off"):
        assert _ci_is_set({"CI": value}) == modes.ci_is_set({"CI": value}), value
    assert modes.resolve_mode(None, {"CI": "1"}).mode.value == "replay"


def test_the_hint_names_the_command_and_ci() -> None:
    assert "`evalmark run s --record-mode record-missing`" in record_hint(
        "evalmark run s --record-mode record-missing"
    )
    assert "outside CI" in record_hint(ci=True)
    assert f"{MODE_ENV}=record-missing <your command>" in record_hint()
