"""An offline run whose application opens a socket fails fast, naming the case, the host and
the line, and says how to record instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_helpers import Listener, Net

from evalmark.cli import main
from evalmark.engine._scorer import Scorer
from evalmark.offline import attempts, offline
from evalmark.offline._run import blocked_note
from evalmark.samples._samples import Sample
from evalmark.strategies import ExactMatch

APP = """\
import socket


def answer(question):
    if "network" in question:
        socket.create_connection(("api.example.com", 443), timeout=1)
    if "swallow" in question:
        try:
            socket.create_connection(("198.51.100.7", 80), timeout=1)
        except Exception:
            pass
    return "Paris"
"""

SAMPLES = """\
- name: offline-one
  parameters: [What is the capital of France?]
  expected-output: Paris
- name: calls-network
  parameters: [use the network]
  expected-output: Paris
- name: swallows-the-error
  parameters: [swallow the error]
  expected-output: Paris
"""

SUITE = """\
name: net
samples: samples.yaml
application:
  function: app.py:answer
strategies:
  - exact-match
gate:
  pass-rate: 0.5
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, "utf-8")
    (tmp_path / "samples.yaml").write_text(SAMPLES, "utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, "utf-8")
    return tmp_path


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CI", "EVALMARK_OFFLINE", "EVALMARK_OFFLINE_ALLOW", "EVALMARK_RECORD_MODE"):
        monkeypatch.delenv(name, raising=False)
    attempts(clear=True)


def test_the_engine_records_the_blocked_call_as_an_error_of_its_sample(listener: Listener) -> None:
    import socket

    def answer(question: str) -> str:
        if question == "online?":
            socket.create_connection(listener.address, timeout=2)
        return "yes"

    samples = [
        Sample(name="stays-home", parameters=["offline?"], expected_output="yes"),
        Sample(name="phones-home", parameters=["online?"], expected_output="yes"),
    ]
    with offline(allow=[], reason="a test said so", hint="record it with `make record`"):
        report = Scorer(concurrency=2).evaluate(samples, answer, ExactMatch())
    rows = {row.name: row for row in report.rows()}
    assert rows["stays-home"].verdict == "pass"
    assert rows["phones-home"].verdict == "error"
    error = rows["phones-home"].results["ExactMatch"].error
    assert error is not None and error.type == "NetworkBlockedError"
    assert f"127.0.0.1:{listener.port}" in error.message
    note = blocked_note([report])
    assert note.splitlines()[0] == "network blocked in 1 case(s) (evalmark runs offline: " + (
        "a test said so):"
    )
    assert f"phones-home: connection to 127.0.0.1:{listener.port} from " in note
    assert "test_offline_run.py:" in note and "(answer)" in note
    assert note.rstrip().endswith("record it with `make record`")
    listener.settle()
    assert listener.accepted == 0


def test_nothing_blocked_means_no_note() -> None:
    assert blocked_note([]) == ""


def test_evalmark_run_fails_fast_naming_the_case_the_host_and_the_line(
    suite: Path, no_escape: Net, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(suite), "--no-report"])
    out = capsys.readouterr().out
    assert code == 1
    assert "calls-network  (ERROR)" in out
    app = suite / "app.py"
    assert f"net/calls-network: name lookup of api.example.com:443 from {app}:6 (answer)" in out
    assert "evalmark runs offline: the record mode is replay, the default" in out
    assert (
        "1 more refused call(s) were caught by the application itself, e.g. connection to "
        + (f"198.51.100.7:80 from {app}:9 (answer)")
        in out
    )
    assert f"`evalmark run {suite} --record-mode record-missing`" in out
    assert no_escape.calls == []  # nothing reached the resolver or the network
    assert len(attempts()) == 2


# evalmark_network: under CI this session is itself guarded; the runs here decide for themselves.
@pytest.mark.evalmark_network
@pytest.mark.parametrize(
    ("args", "env", "offline_run"),
    [
        (["--no-offline"], {}, False),
        (["--record-mode", "record-missing"], {}, False),
        (["--record-mode", "record-missing"], {"EVALMARK_OFFLINE": "1"}, True),
        (["--record-mode", "record-missing", "--offline"], {}, True),
        ([], {"CI": "true", "EVALMARK_RECORD_MODE": "record-missing"}, True),
        ([], {"EVALMARK_OFFLINE": "0"}, False),
    ],
)
def test_when_evalmark_run_is_offline(
    suite: Path,
    no_escape: Net,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    offline_run: bool,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    main(["run", str(suite), "--no-report", *args])
    out = capsys.readouterr().out
    assert ("network blocked in 1 case(s)" in out) is offline_run
    if offline_run:
        assert no_escape.calls == []
    else:  # the guard was off: the call went down to the safety net, which stopped it
        assert ("getaddrinfo", "api.example.com") in no_escape.calls
    if env.get("CI"):
        assert "outside CI (CI forces replay)" in out


@pytest.mark.evalmark_network
def test_the_allowlist_of_a_run_comes_from_the_environment(
    suite: Path,
    no_escape: Net,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVALMARK_OFFLINE_ALLOW", "api.example.com")
    main(["run", str(suite), "--no-report"])
    out = capsys.readouterr().out
    assert ("getaddrinfo", "api.example.com") in no_escape.calls  # allowed, so it went on
    assert "network blocked in" not in out
    assert "1 more refused call(s)" in out  # 198.51.100.7 is still refused


def test_a_bad_offline_setting_is_a_usage_error(
    suite: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALMARK_OFFLINE", "maybe")
    assert main(["run", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "evalmark run: error: EVALMARK_OFFLINE='maybe': use 1 to run offline or 0 to allow "
        "the network\n"
    )
