"""``evalmark tune`` and ``evalmark compare`` on the command line: text, JSON, plot, where the
judge's rates come from, and usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evalmark.cli
from evalmark.cli import main
from evalmark.report import write_report

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


ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


@pytest.fixture(autouse=True)
def only_tune(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test the real dispatcher with just these subcommands registered."""
    monkeypatch.setattr(evalmark.cli, "_COMMANDS", ("tune", "compare"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_report_shows_the_issue_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *ISSUE_ARGS)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "judge noise: flip rates 0.03, 0.08 (from --flip)"
    assert lines[2].startswith("judge flip rate 0.03: 12 cases, 24 judged checks")
    assert lines[3].split() == [
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
    assert "NOT MET: no gate keeps false alarm ≤ 0.05 and miss ≤ 0.05 on these 12 cases" in out
    assert "  40 cases of the same mix, gating on ≥30/40" in out


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
    assert "--plot: plotting needs the 'matplotlib' package" in err
    assert "pip install 'evalmark[plot]'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tune", "--flip", "0.03"], "give a SUITE file (e.g. evalmark tune golden/support)"),
        (["tune", "--cases", "12", "--false-pass", "0.1"], "give --false-fail too"),
        (
            ["tune", "--cases", "12", "--flip", "0.1", "--false-pass", "0.1"],
            "give --flip (equal rates) or --false-pass with --false-fail, not both",
        ),
        (
            ["tune", "--cases", "12", "--false-pass", "0.1", "--false-fail", "3/100"],
            "both as rates (0.1) or both as counts (4/40)",
        ),
        (
            ["tune", "--cases", "12", "--false-pass", "9/4", "--false-fail", "3/100"],
            "--false-pass: '9/4' is not errors/trials such as 4/40 (errors (9) cannot exceed",
        ),
        (
            ["tune", "--cases", "12", "--false-pass", "x", "--false-fail", "0.1"],
            "--false-pass: 'x' is not a rate (0.1) or errors/trials (4/40)",
        ),
        (["tune", "--cases", "12", "--overdispersion", "2"], "--overdispersion: 2.0 is not"),
        (["tune", "--cases", "12", "--repeats", "1,0"], "--repeats: '0' is not a whole number"),
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


# ------------------------------------------------------------------- where the rates come from


def test_without_rates_the_documented_default_is_used_and_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "tune", "--cases", "12", "--judged-checks", "2", "--runs", "0")
    assert code == 0 and err == ""
    assert out.startswith(
        "judge noise: false pass 10/100, false fail 3/100, overdispersion 0.3: evalmark's "
        "default judge noise (a cautious guess, not a measurement)\n"
        "  no rates given; measure your judge (docs/noise.md)"
    )
    assert "correlated errors (overdispersion 0.3" in out and "uncertainty:" in out


def test_the_suites_rates_file_is_found_and_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import shutil

    from evalmark.noise import JudgeRates, RateCounts, write_rates
    from evalmark.noise._rates import rates_path

    suite = tmp_path / "support"
    shutil.copytree(SUPPORT, suite)
    measured = JudgeRates(RateCounts(2, 80), RateCounts(1, 160), source="judge calibrate labels")
    path = write_rates(rates_path(suite), measured)
    code, out, _ = run(capsys, "tune", str(suite), "--runs", "0")
    assert code == 0
    assert f"judge noise: false pass 2/80, false fail 1/160 from {path}\n" in out
    assert "  measured by: judge calibrate labels" in out
    assert "judge false pass 0.03086, false fail 0.009317: 12 cases" in out
    # --rates names another file; --flip wins over both
    other = write_rates(tmp_path / "other.json", JudgeRates(RateCounts(4, 40), RateCounts(4, 40)))
    code, out, _ = run(capsys, "tune", str(suite), "--rates", str(other), "--runs", "0")
    assert code == 0
    assert f"judge noise: false pass 4/40, false fail 4/40 from {other}\n" in out
    code, out, _ = run(capsys, "tune", str(suite), "--flip", "0.05", "--runs", "0")
    assert "judge noise: flip rate 0.05 (from --flip)" in out


def test_a_bad_rates_file_is_a_usage_error_naming_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "rates.json"
    bad.write_text('{"format": "evalmark-judge-rates", "false_fail": {"errors": 1, "trials": 9}}')
    code, out, err = run(capsys, "tune", "--cases", "12", "--rates", str(bad))
    assert code == 2 and out == ""
    assert f"{bad}: false_pass: missing" in err


def test_asymmetric_rates_as_numbers_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["tune", "--cases", "12", "--judged-checks", "2", "--failing", "3", "--runs", "0"]
    code, out, _ = run(capsys, *base, "--false-pass", "0.2", "--false-fail", "0.02")
    assert code == 0
    assert (
        "judge noise: false pass 0.2, false fail 0.02 (from --false-pass and --false-fail)" in out
    )
    assert "judge false pass 0.2, false fail 0.02: 12 cases" in out
    assert "correlated errors" not in out and "uncertainty:" not in out
    code, out, _ = run(
        capsys, *base, "--false-pass", "4/40", "--false-fail", "1/50", "--overdispersion", "0.2"
    )
    assert code == 0
    assert "judge noise: false pass 4/40, false fail 1/50, overdispersion 0.2" in out
    assert "uncertainty: the rates are counts (false pass 4/40, false fail 1/50)" in out


def test_the_suite_view_has_every_section_and_the_advice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "tune", str(SUPPORT), "--runs", "2000")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"suite {SUPPORT}: build 'healthy' as healthy")
    assert lines[1] == "the suite's gate: pass rate >= 0.9, i.e. >= 11/12 cases"
    for heading in (
        "correlated errors (overdispersion 0.3",
        "uncertainty: the rates are counts",
        "repeats: each judged check decided by the majority of k",
        "NOT MET: ",
    ):
        assert heading in out
    assert out.index("NOT MET") < out.index("best gate meanwhile")
    assert (
        "to apply in suite.yaml: gate: {pass-rate: 0.9}, and repeats: 5 on relevancy and "
        "groundedness" in out
    )
    assert sum(line.endswith("← suite gate") for line in lines) == 3  # one per table


def test_json_holds_the_header_facts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tune", str(SUPPORT), "--runs", "0", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["noise_source"] == "default" and data["current_gate"] == 0.9
    assert data["judged_checks_named"] == ["relevancy", "groundedness"]
    assert data["header"][0].startswith("suite ")
    (level,) = data["levels"]
    assert level["measured"]["false_pass"] == {"errors": 10, "trials": 100}
    assert level["choice"] == {"repeats": 5, "judge_calls": 120}


def test_the_readme_command_keeps_its_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tune", str(SUPPORT), "--flip", "0.03,0.08")
    assert code == 0
    for line in (
        "every case        ≥12/12  0.5186 (sim  5139/10000)    1.0000 (sim 10000/10000)",
        "pass rate≥0.8333  ≥10/12  0.0304 (sim   302/10000)    0.9832 (sim  9806/10000)",
        "recommended: pass rate≥0.8333 (≥10/12 cases pass)",
        "  false alarm 0.0304 (target ≤ 0.05), miss 0.0168 (target ≤ 0.05, met)",
        "minimum cases for false alarm ≤ 0.05 and miss ≤ 0.05: 10 of the same mix, gating on "
        "≥8/10 (false alarm 0.0181, miss 0.0190); a minimum, not advice to drop cases: the "
        "suite's 12 cases meet them already",
    ):
        assert line in out.splitlines()
    assert (
        "pass rate≥0.9167  ≥11/12  0.1557 (sim  1531/10000)    1.0000 (sim 10000/10000)"
        "    ← suite gate" in out
    )


# --------------------------------------------------------------------------- compare


def _reports(tmp_path: Path) -> tuple[Path, Path]:
    from evalmark.suite._loader import load_suite
    from evalmark.suite._runner import run_suite

    suite = load_suite(SUPPORT)
    paths = []
    for build in ("healthy", "regressed"):
        (report,) = run_suite(suite, build=build, mode="replay").reports
        paths.append(write_report(report, tmp_path / f"{build}.json"))
    return paths[0], paths[1]


def test_compare_two_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a, b = _reports(tmp_path)
    code, out, err = run(capsys, "compare", str(a), str(b))
    assert code == 0 and err == ""
    assert "3 passed in A and failed in B, 0 failed in A and passed in B" in out
    assert "exact McNemar test: p = 0.25 (two-sided): no difference beyond noise" in out
    assert "pass rate: A 100.0%, B 75.0%, B − A = -25.0 points" in out
    assert out.rstrip().endswith("no difference between A and B beyond noise on these 12 cases")
    code, out, _ = run(capsys, "compare", str(a), str(b), "--format", "json", "--cluster", "tags")
    data = json.loads(out)
    assert data["mcnemar"]["worse"] == 3 and data["pass_rate"]["clusters"] == 11
    assert data["verdict"] == "no difference"


def test_compare_recorded_builds_of_a_suite_grouped_by_metadata(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys,
        "compare",
        "healthy",
        "regressed",
        "--suite",
        str(SUPPORT),
        "--cluster",
        "metadata:source",
    )
    assert code == 0
    assert "5 groups by metadata:source" in out and "(t, 4 df)" in out


def test_compare_fails_when_worse_beyond_noise(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, b = _reports(tmp_path)
    # a build whose every case fails is worse beyond noise, even on 12 cases
    text = json.loads(b.read_text())
    for sample in text["samples"]:
        sample["verdict"] = "fail"
        for result in sample["results"].values():
            result["passed"], result["score"] = False, 0.0
    worse = tmp_path / "worse.json"
    worse.write_text(json.dumps(text))
    code, out, _ = run(capsys, "compare", str(a), str(worse), "--fail-if-worse")
    assert code == 1
    assert "verdict: B is worse than A beyond noise" in out
    assert run(capsys, "compare", str(a), str(b), "--fail-if-worse")[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "nope.json", "other.json"], "nope.json: no such report"),
        (["compare", "a", "b", "--cluster", "colour"], "--cluster: 'colour' is not a grouping"),
        (["compare", "a.json", "b.json", "--cluster", "metadata:x"], "needs --suite"),
        (["compare", "healthy", "nightly", "--suite", str(SUPPORT)], "no build named 'nightly'"),
    ],
)
def test_compare_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err


def test_compare_refuses_a_file_that_is_not_a_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something"}')
    code, _, err = run(capsys, "compare", str(bad), str(bad))
    assert code == 2 and "not an evalmark JSON report" in err
