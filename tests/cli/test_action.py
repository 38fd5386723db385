"""The composite GitHub Action (``action.yml`` at the repository root): it parses, every
input is used, and its run step turns the inputs into ``evalmark run`` flags the CLI accepts
(the step's own bash script runs here, against a stand-in ``evalmark`` that records its
arguments)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evalmark._files.yaml_read import read_yaml_document
from evalmark.cli import build_parser
from evalmark.errors import SuiteError

ACTION = Path(__file__).resolve().parents[2] / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def _action() -> dict[str, Any]:
    document = read_yaml_document(ACTION.read_bytes(), str(ACTION), SuiteError)
    assert document is not None
    value: dict[str, Any] = document.value
    return value


def _step(name: str) -> dict[str, Any]:
    (step,) = [s for s in _action()["runs"]["steps"] if s.get("name") == name]
    return step


def _run_step(tmp_path: Path, given: dict[str, str]) -> list[str]:
    """Run the step's script with ``given`` inputs (the others at their defaults) and return
    the arguments it passed to ``evalmark``."""
    inputs = {k: str(v.get("default", "")) for k, v in _action()["inputs"].items()}
    inputs.update(given)
    step = _step("Run the suite")
    env = {k: EXPRESSION.sub(lambda m: inputs[m.group(1)], v) for k, v in step["env"].items()}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "argv"
    fake = bin_dir / "evalmark"
    fake.write_text(f"#!/usr/bin/env bash\nprintf '%s\\0' \"$@\" > '{record}'\n")
    fake.chmod(0o755)
    environment = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **env}
    subprocess.run(
        ["bash", "-c", step["run"]], env=environment, check=True, timeout=60, cwd=tmp_path
    )
    return record.read_bytes().decode().split("\0")[:-1]


def test_the_action_is_a_composite_whose_inputs_are_all_used() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["suite"]["required"] is True
    used = {
        m.group(1)
        for step in action["runs"]["steps"]
        for text in [str(step.get("env", "")), str(step.get("with", "")), str(step.get("if", ""))]
        for m in EXPRESSION.finditer(text)
    } | {"python-version"}  # read by the setup step's `if`
    assert used == set(action["inputs"])
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
    install = _step("Install evalmark")
    assert install["env"]["EVALMARK_PACKAGE"] == "${{ inputs.package }}"
    assert '"$EVALMARK_PACKAGE"' in install["run"]


def test_the_defaults_run_the_suite_with_github_output(tmp_path: Path) -> None:
    argv = _run_step(tmp_path, {"suite": "evals/support"})
    assert argv == ["run", "evals/support", "--github"]
    args = build_parser().parse_args(argv)
    assert (str(args.suite), args.github, args.build) == ("evals/support", True, None)


def test_each_input_maps_to_its_flag(tmp_path: Path) -> None:
    given = {
        "suite": "evals/my suite",
        "build": "candidate",
        "tags": "geo,math",
        "baseline": "base line.json",
        "max-drop": "0.1",
        "report-dir": "out/reports",
        "args": "--quiet --concurrency 2",
    }
    argv = _run_step(tmp_path, given)
    args = build_parser().parse_args(argv)
    assert str(args.suite) == "evals/my suite"  # spaces survive: no word splitting of inputs
    assert args.build == "candidate"
    assert str(args.baseline) == "base line.json"
    assert args.max_drop == pytest.approx(0.1)
    assert str(args.report_dir) == "out/reports"
    assert args.quiet is True and args.concurrency == 2
    assert args.github is True
    assert "geo,math" in argv
