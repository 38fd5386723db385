"""``evalmark run --isolate-network``: the run is executed again in a network namespace with
no interfaces, where nothing (Python, a subprocess, a C extension) reaches the host's network
or even a listener on the host's own 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from offline_helpers import Listener

from evalmark.errors import SandboxUnavailableError

APP = """\
import os
import socket
import subprocess
import sys


def answer(question):
    if question == "interfaces":
        return ",".join(sorted(name for _, name in socket.if_nameindex()))
    if question == "probe":
        port = int(os.environ["PROBE_PORT"])
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        except OSError:
            pass
        else:
            return "reached"
        # a subprocess, which no Python-level guard sees
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
        return "reached by a subprocess" if done.returncode == 0 else "unreachable"
    return "Paris"
"""

SAMPLES = """\
- name: no-network-needed
  parameters: [What is the capital of France?]
  expected-output: Paris
- name: probe
  parameters: [probe]
  expected-output: unreachable
- name: interfaces
  parameters: [interfaces]
  expected-output: lo
"""

SUITE = """\
name: isolated
samples: samples.yaml
application:
  function: app.py:answer
strategies:
  - exact-match
gate:
  pass-rate: 1.0
"""


def _run(suite: Path, port: int, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PROBE_PORT": str(port)}
    for name in ("CI", "EVALMARK_OFFLINE", "EVALMARK_NETWORK_ISOLATED", "EVALMARK_RECORD_MODE"):
        env.pop(name, None)
    command = [sys.executable, "-m", "evalmark", "run", str(suite), "--no-history"]
    return subprocess.run(
        [*command, "--no-report", *flags],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
        cwd=suite,
    )


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, "utf-8")
    (tmp_path / "samples.yaml").write_text(SAMPLES, "utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, "utf-8")
    return tmp_path


@pytest.mark.evalmark_network  # the runs decide for themselves; this test only uses loopback
def test_an_isolated_run_reaches_nothing_outside_and_still_passes(
    suite: Path, listener: Listener
) -> None:
    from evalmark.offline._isolate import isolation_prefix

    try:
        isolation_prefix()
    except SandboxUnavailableError as exc:
        pytest.skip(str(exc))
    done = _run(suite, listener.port, "--isolate-network")
    assert done.returncode == 0, done.stdout + done.stderr
    listener.settle()
    assert listener.accepted == 0
    # Without it the same probe reaches the listener (the loopback is allowed by the guard).
    plain = _run(suite, listener.port)
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert "probe" in plain.stdout
    listener.settle(handled=1)
    assert listener.accepted == 1


def test_without_namespaces_the_run_stops_with_one_line(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalmark.cli import main
    from evalmark.offline import _isolate

    monkeypatch.setattr(_isolate, "isolated", lambda: False)
    monkeypatch.setattr(_isolate.shutil, "which", lambda name: None)
    assert main(["run", str(suite), "--isolate-network", "--no-history"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert err.startswith("evalmark run: error: --isolate-network needs a network namespace")
    assert "bwrap is not installed; unshare is not installed" in err
