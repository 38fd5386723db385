"""``evalmark code run``: the bundled demo, the gate's exit codes, input errors."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from code_sandbox_helpers import require_bwrap

import evalmark.code._sandbox.bwrap as bwrap_module
from evalmark.cli import main
from evalmark.code import Limits, RunRequest, run_tasks
from evalmark.code._sandbox import BwrapSandbox
from evalmark.errors import SandboxUnavailableError

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "code"


def test_the_bundled_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_bwrap()
    out = tmp_path / "code.json"
    code = main(["code", "run", str(GOLDEN), "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "20 tasks, 100 samples, sandbox bwrap" in printed
    assert "pass@1 0.650  pass@5 0.950" in printed
    assert "gate pass@1 0.650 >= 0.600  passed" in printed
    assert printed.rstrip().endswith("gate passed")
    # the hostile solution: a 10 GB table (refused), then a 1 GB cache file (stopped)
    assert "primes #2  file_size_limit: importing the code raised OSError: [Errno 27]" in printed
    # the CPU limit (5 s) is above the wall clock (4 s), so the reason does not depend on load
    assert "fibonacci #1  timeout: timed out while running test_large" in printed
    assert "binary-search #1  timeout: timed out while running test_found" in printed
    assert "is-palindrome #3  code_extraction_failed: no code to check" in printed
    document = json.loads(out.read_text())
    assert document["pass_at_k"] == {"pass@1": 0.65, "pass@5": 0.95}
    samples = [s for task in document["tasks"] for s in task["samples"]]
    assert len(samples) == 100
    assert {s["metadata"]["sandbox"] for s in samples} == {"bwrap"}
    assert [task["id"] for task in document["tasks"]][:3] == [
        "fizzbuzz",
        "reverse-words",
        "is-palindrome",
    ]
    assert all(g["passed"] for g in document["gate"])


@pytest.fixture
def small(tmp_path: Path) -> Path:
    (tmp_path / "tasks.yaml").write_text(
        "- id: inc\n  tests: |\n    def test_inc():\n        assert inc(1) == 2\n"
    )
    lines = [
        {"task": "inc", "sample": 0, "completion": "```python\ndef inc(x):\n    return x + 1\n```"},
        {"task": "inc", "sample": 1, "completion": "```python\ndef inc(x):\n    return x\n```"},
    ]
    (tmp_path / "solutions.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "code.yaml").write_text(
        "tasks: tasks.yaml\nsolutions: solutions.jsonl\nsandbox: local\nk: [1, 2]\n"
        "gate: {pass@1: 0.5, pass@2: 1.0}\n"
    )
    return tmp_path


def test_the_gate_passes_and_fails(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code", "run", str(small)]) == 0
    printed = capsys.readouterr().out
    assert "pass@1 0.500  pass@2 1.000" in printed and "gate passed" in printed
    (small / "code.yaml").write_text(
        "tasks: tasks.yaml\nsolutions: solutions.jsonl\nsandbox: local\ngate: {pass@1: 0.9}\n"
    )
    assert main(["code", "run", str(small / "code.yaml"), "--quiet"]) == 1
    printed = capsys.readouterr().out
    assert "gate pass@1 0.500 <  0.900  FAILED" in printed and "gate FAILED" in printed
    assert "failing samples" not in printed  # --quiet


def test_progress_of_the_runs_on_stderr(
    small: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("evalmark.cli._code._PROGRESS_DELAY", 0.0)
    assert main(["code", "run", str(small), "--progress", "--concurrency", "1"]) == 0
    out, err = capsys.readouterr()
    assert "running" in err and "/2 runs" in err
    assert "running" not in out
    assert main(["code", "run", str(small)]) == 0  # not a terminal: no progress
    assert "runs" not in capsys.readouterr().err


def test_overrides_from_the_command_line(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code", "run", str(small), "--k", "1", "--concurrency", "1"]) == 0
    printed = capsys.readouterr().out
    assert "pass@2" in printed  # the gate's k is always reported
    assert "inc #1  tests_failed: test_inc failed" in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--k", "0"], "--k takes whole numbers >= 1"),
        (["--k", "one"], "--k takes whole numbers"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--solutions", "/nonexistent/s.jsonl"], "no such file"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    small: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["code", "run", str(small), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalmark code: error:") and message in err
    assert "Traceback" not in err


def test_a_missing_code_run_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code", "run", str(tmp_path)]) == 2
    assert "code.yaml: no such file" in capsys.readouterr().err


def test_code_without_an_action_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["code"]) == 2
    assert "run" in capsys.readouterr().out


# --------------------------------------------------------------------------- unavailable


@pytest.fixture
def fresh_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap_module, "_PROBED", {})


def test_no_bubblewrap_is_a_clear_error(
    fresh_probe: None, small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = BwrapSandbox(bwrap="/nonexistent/bwrap")
    request = RunRequest(argv=("true",))
    with pytest.raises(SandboxUnavailableError, match="bubblewrap is not installed") as caught:
        missing.run(request, Limits())
    assert "apt-get install bubblewrap" in str(caught.value)
    assert isinstance(caught.value, RuntimeError)
    with pytest.raises(SandboxUnavailableError):
        run_tasks(small / "tasks.yaml", small / "solutions.jsonl", sandbox=missing)


def test_the_cli_reports_an_unavailable_sandbox(
    fresh_probe: None,
    small: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(bwrap_module, "_find_bwrap", lambda path: None)
    assert main(["code", "run", str(small), "--sandbox", "bwrap"]) == 2
    err = capsys.readouterr().err
    assert "the bwrap sandbox cannot run here: bubblewrap is not installed" in err


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder every user can read (bubblewrap may run as uid 65534)."""
    folder = Path(tempfile.mkdtemp(prefix="evalmark-fake-bwrap-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for item in folder.iterdir():
            item.unlink()
        folder.rmdir()


def test_refused_namespaces_are_named(fresh_probe: None, shared_dir: Path) -> None:
    fake = shared_dir / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        'case " $* " in\n'
        '  *" --unshare-net "*) echo "bwrap: loopback: Failed RTM_NEWADDR: '
        'Operation not permitted" >&2; exit 1;;\n'
        "esac\n"
        "exit 0\n"
    )
    fake.chmod(0o755)
    sandbox = BwrapSandbox(bwrap=str(fake))
    with pytest.raises(SandboxUnavailableError) as caught:
        sandbox.check()
    message = str(caught.value)
    assert message.startswith("bubblewrap cannot create a new net namespace on this machine")
    assert "RTM_NEWADDR" in message
    assert "sandbox='local'" in message


def test_an_interpreter_the_sandbox_cannot_reach(fresh_probe: None) -> None:
    import os

    if os.geteuid() != 0:
        pytest.skip("only root runs bubblewrap as another user")
    require_bwrap()
    hidden = Path(tempfile.mkdtemp(prefix="evalmark-hidden-"))  # mode 0700, root's only
    try:
        (hidden / "python3").symlink_to("/usr/bin/python3")
        with pytest.raises(SandboxUnavailableError, match="must be readable by uid 65534"):
            BwrapSandbox(python=str(hidden / "python3")).check()
    finally:
        (hidden / "python3").unlink()
        hidden.rmdir()
