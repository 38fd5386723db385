"""``evalmark tune`` on the command line: text, JSON, plot and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalmark.cli
from evalmark.cli import main

ISSUE_ARGS = [
    "tune",
    "--cases",
    "12",
    "--judged-checks",
    "2",
    "--failing",
    "3",
    "--flip",
    "0.03,0.08",
    "--thresholds",
    "every,0.9,0.85,0.8",
    "--runs",
    "200",
]


@pytest.fixture(autouse=True)
def only_tune(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test the real dispatcher with just this subcommand registered."""
    monkeypatch.setattr(evalmark.cli, "_COMMANDS", ("tune",))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_report_shows_the_issue_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *ISSUE_ARGS)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("judge flip rate 0.03: 12 cases, 24 judged checks")
    assert lines[1].split() == [
        "gate", "needs", "healthy", "build", "fails", "it", "regressed", "build", "fails", "it"
    ]  # fmt: skip
    every = next(line for line in lines if line.startswith("every case"))
    assert "0.5186 (sim" in every and "/200)" in every
    assert any(line.startswith("pass rate≥0.90") and "0.1557" in line for line in lines)
    assert any(
        line.startswith("pass rate≥0.85") and "same gate as pass rate≥0.90" in line
        for line in lines
    )
    assert "recommended: pass rate≥0.80 (≥10/12 cases pass)" in out
    assert "judge flip rate 0.08" in out
    assert "cases needed for false alarm ≤ 0.05 and miss ≤ 0.05: 40" in out


def test_json_report_parses_and_agrees_with_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *ISSUE_ARGS, "--format", "json", "--seed", "5")
    assert code == 0
    data = json.loads(out)
    assert data["seed"] == 5 and data["runs"] == 200 and data["cases"] == 12
    low = data["levels"][0]
    assert low["flip_rate"] == 0.03
    gates = {g["threshold"]: g for g in low["gates"]}
    assert round(gates[1.0]["healthy_fails"], 6) == 0.518583
    assert round(gates[0.9]["healthy_fails"], 6) == 0.155716
    assert round(gates[0.8]["healthy_fails"], 6) == 0.030358
    assert gates[0.85]["same_gate_as"] == [0.9]
    assert 0 <= gates[1.0]["healthy_simulated"] <= 200
    assert low["recommendation"]["min_passing"] == 10


def test_the_same_seed_prints_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run(capsys, *ISSUE_ARGS, "--seed", "9")
    _, second, _ = run(capsys, *ISSUE_ARGS, "--seed", "9", "--workers", "1")
    _, other, _ = run(capsys, *ISSUE_ARGS, "--seed", "10")
    assert first == second
    assert first != other


def test_plot_is_written_as_a_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "gates.png"
    code, out, _ = run(capsys, *ISSUE_ARGS, "--plot", str(target))
    assert code == 0
    assert target.read_bytes().startswith(b"\x89PNG")
    assert f"plot written to {target}" in out


def test_plot_without_matplotlib_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib

    real_import = importlib.import_module

    def no_matplotlib(name: str, package: str | None = None) -> object:
        if name.startswith("matplotlib"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", no_matplotlib)
    code, _, err = run(capsys, *ISSUE_ARGS, "--plot", str(tmp_path / "x.png"))
    assert code == 2
    assert "--plot: plotting needs matplotlib" in err
    assert "pip install 'evalmark[plot]'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tune", "--flip", "0.03"], "give the suite size with --cases N"),
        (["tune", "--cases", "12"], "give the judge noise levels with --flip"),
        (["tune", "--cases", "12", "--flip", "0.03,x"], "--flip: 'x' is not a number"),
        (["tune", "--cases", "12", "--flip", "1.3"], "--flip: 1.3 is not a probability"),
        (["tune", "--cases", "12", "--flip", "0.03,,0.1"], "--flip: empty item"),
        (
            ["tune", "--cases", "12", "--flip", "0.1", "--thresholds", "high"],
            "threshold 'high' is not a number",
        ),
        (
            ["tune", "--cases", "12", "--flip", "0.1", "--failing", "13"],
            "failing must be at most cases (12)",
        ),
        (["tune", "--cases", "12", "--flip", "0.1", "--runs", "-1"], "runs must be an integer"),
    ],
)
def test_usage_errors_exit_2_and_say_what_to_do(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("evalmark tune: error: ")
    assert message in err
