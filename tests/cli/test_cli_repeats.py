"""``evalmark run`` prints the pass@k / pass^k figures of a suite with repeats, not only the
gate's rows."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from evalmark.cli import main

APP = """\
from evalmark.models._context import current_call

GOOD = {"a": 5, "b": 3, "c": 0}


def answer(question):
    call = current_call()
    repeat = call.repeat if call is not None and call.repeat is not None else 0
    return "yes" if repeat < GOOD[question] else "no"
"""


def write_suite(tmp_path: Path, repeats: str) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(
        "".join(f"- {{name: {n}, parameters: [{n}], expected-output: 'yes'}}\n" for n in "abc"),
        encoding="utf-8",
    )
    suite = f"""\
        name: flaky
        samples: samples.yaml
        application: {{function: app.py:answer}}
        strategies: [exact-match]
        {repeats}
        gate: {{pass-rate: 0.5}}
        report: {{dir: {(tmp_path / "out").as_posix()}, formats: [json]}}
        """
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(suite), encoding="utf-8")
    return path


def test_the_run_prints_the_figures_overall_and_per_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(write_suite(tmp_path, "repeats: {runs: 5, k: 2}")), "--no-history"])
    out = capsys.readouterr().out
    assert code == 0
    block = out.split("repeated runs: 5 per case; pass@2 0.633, pass^2 0.433\n", 1)[1]
    rows = [line.split() for line in block.split("\n\n", 1)[0].splitlines()[2:]]
    # b passed 3 of 5 runs: pass@2 = 1 - C(2,2)/C(5,2) = 0.9, pass^2 = C(3,2)/C(5,2) = 0.3
    assert rows == [
        ["a", "5/5", "1.000", "1.000"],
        ["b", "3/5", "0.900", "0.300"],
        ["c", "0/5", "0.000", "0.000"],
    ]


def test_a_run_without_repeats_prints_no_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(write_suite(tmp_path, "")), "--no-history"]) == 0
    assert "repeated runs" not in capsys.readouterr().out
